package dev.shardstore.router.api;

import dev.shardstore.contracts.bson.ExtendedJson;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.error.ErrorReplies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Turns every failure of a client request into an RFC 9457 problem body that also carries MongoDB's
 * {@code ok: 0, errmsg, code, codeName} (DESIGN.md §6), with the error code's HTTP status. Anything
 * unexpected is an InternalError 500 and is logged; bad input never gets that far.
 */
@RestControllerAdvice(basePackageClasses = ProblemResponses.class)
public class ProblemResponses {
    private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

    /** The problem response for a command failure. */
    public static ResponseEntity<String> problem(CommandException e) {
        return ResponseEntity.status(e.code().httpStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(ExtendedJson.toJson(ErrorReplies.problem(e)));
    }

    @ExceptionHandler(CommandException.class)
    ResponseEntity<String> command(CommandException e) {
        return problem(e);
    }

    @ExceptionHandler({HttpMessageNotReadableException.class, MethodArgumentTypeMismatchException.class})
    ResponseEntity<String> unreadable(Exception e) {
        return problem(new CommandException(ErrorCode.FailedToParse, "unreadable request: " + e.getMessage()));
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<String> mediaType(HttpMediaTypeNotSupportedException e) {
        return problem(new CommandException(ErrorCode.BadValue, "send the body as application/json (Extended JSON): " + e.getMessage()));
    }

    @ExceptionHandler(RuntimeException.class)
    ResponseEntity<String> unexpected(RuntimeException e) {
        log.error("unexpected failure", e);
        return problem(new CommandException(ErrorCode.InternalError, "internal error: " + e));
    }

}
