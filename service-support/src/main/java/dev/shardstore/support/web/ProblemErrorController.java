package dev.shardstore.support.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.webmvc.error.ErrorAttributes;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.ServletWebRequest;

/**
 * The servlet container's error path ({@code /error}, in place of Spring Boot's {@code BasicErrorController}):
 * whatever reaches it — an exception no controller advice handled, an exception thrown by a filter, a status the
 * framework set without a body (no handler for the path, wrong method or media type) — is answered with the
 * {@link Problems} body, whatever the request's {@code Accept} header says. Failures of the service itself are
 * logged with the request id.
 */
@RestController
public class ProblemErrorController implements ErrorController {
    private static final Logger log = LoggerFactory.getLogger(ProblemErrorController.class);

    private final ErrorAttributes errors;

    public ProblemErrorController(ErrorAttributes errors) {
        this.errors = errors;
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Throwable thrown = errors.getError(new ServletWebRequest(request));
        Problems.Problem problem = thrown != null ? Problems.of(thrown) : Problems.ofStatus(status(request), describe(request));
        String requestId = RequestIdFilter.of(request);
        if (problem.unexpected()) {
            log.error("request {} {} {} failed", requestId, request.getMethod(), uri(request), thrown);
        }
        Problems.write(response, problem, requestId);
    }

    private static int status(HttpServletRequest request) {
        return request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer status ? status : 500;
    }

    /** The path that failed (the request's own when {@code /error} was asked for directly). */
    private static Object uri(HttpServletRequest request) {
        Object failed = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        return failed != null ? failed : request.getRequestURI();
    }

    private static String describe(HttpServletRequest request) {
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        String what = request.getMethod() + " " + uri(request);
        return message instanceof String text && !text.isBlank() ? what + ": " + text : what + " failed with HTTP " + status(request);
    }
}
