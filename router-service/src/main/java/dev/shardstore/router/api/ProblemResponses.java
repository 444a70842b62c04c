package dev.shardstore.router.api;

import dev.shardstore.support.web.Problems;
import dev.shardstore.support.web.RequestIdFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns every failure of a client request into an RFC 9457 problem body that also carries MongoDB's
 * {@code ok: 0, errmsg, code, codeName} and the request id (docs/architecture.md "The client API: REST and the wire protocol"), through {@link Problems}: a refusal
 * with its code's HTTP status, anything unexpected — any {@link Throwable}, including an {@link Error} such as a
 * stack overflow — as an InternalError 500, logged with the request id. Bad input never gets that far. Failures
 * before a controller is chosen (unknown path, wrong method or media type) are answered by the error path,
 * {@link dev.shardstore.support.web.ProblemErrorController}, with the same body.
 */
@RestControllerAdvice(basePackageClasses = ProblemResponses.class)
public class ProblemResponses {
    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

    @ExceptionHandler(Throwable.class)
    ResponseEntity<String> failed(Throwable thrown, HttpServletRequest request) {
        return Problems.response(problem(thrown, request), RequestIdFilter.of(request));
    }

    /**
     * The problem for a failure of a client request, logged with the request id when it is unexpected (for the
     * controllers, through this advice, and for {@link CommandEndpointFilter}, which answers without them).
     */
    static Problems.Problem problem(Throwable thrown, HttpServletRequest request) {
        Problems.Problem problem = Problems.of(thrown);
        if (problem.unexpected()) {
            log.error("request {} {} {} failed unexpectedly", RequestIdFilter.of(request), request.getMethod(), request.getRequestURI(), thrown);
        }
        return problem;
    }
}
