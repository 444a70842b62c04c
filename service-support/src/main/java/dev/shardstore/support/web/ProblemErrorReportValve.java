package dev.shardstore.support.web;

import java.io.IOException;
import java.io.Writer;
import org.apache.catalina.Host;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.MediaType;

/**
 * Tomcat's last word, in place of its HTML error report: a request that Tomcat itself refuses before any servlet
 * or filter sees it (an invalid URI such as one with an encoded NUL or slash, a malformed request line) is answered
 * with the {@link Problems} body too, carrying a request id of its own since {@link RequestIdFilter} never ran.
 * Errors that reached the application have their body already and are left alone.
 */
public final class ProblemErrorReportValve extends ErrorReportValve {

    /** Replaces the error report valves of {@code host} (Tomcat's, or the one Spring Boot adds) with this one. */
    public static void install(Host host) {
        for (Valve valve : host.getPipeline().getValves()) {
            if (valve instanceof ErrorReportValve) {
                host.getPipeline().removeValve(valve);
            }
        }
        host.getPipeline().addValve(new ProblemErrorReportValve());
        if (host instanceof StandardHost standard) {
            standard.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
        }
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        String requestId = RequestIdFilter.idFor(request.getHeader(RequestIdFilter.HEADER));
        // Tomcat sets the status it means (400 for a header too large, with the exception that says so)
        String message = throwable != null ? throwable.getMessage() : response.getMessage();
        Problems.Problem problem = status >= 500 && throwable != null ? Problems.of(throwable)
                : Problems.ofStatus(status, "HTTP " + status + (message == null || message.isBlank() ? "" : ": " + message));
        try {
            response.setStatus(problem.status());
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            response.setCharacterEncoding("UTF-8");
            response.setHeader(RequestIdFilter.HEADER, requestId);
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(Problems.json(problem, requestId));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the response cannot take a body any more: nothing else to tell
            response.getCoyoteResponse().action(ActionCode.CLOSE_NOW, e);
        }
    }
}
