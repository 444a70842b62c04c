package dev.shardstore.support.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request an id: the client's {@value #HEADER} header when it is sane (1 to 64 characters of
 * letters, digits and {@code . _ : -}, so it cannot forge log lines), a random UUID otherwise. The id is put in the
 * logging MDC under {@value #MDC_KEY} for the request's duration, echoed in the {@value #HEADER} response header,
 * and carried by every problem body ({@code requestId}), so a client's report can be matched with the log.
 *
 * <p>It also runs on the servlet container's error dispatch (to {@code /error}) and keeps the id it gave the
 * request, so a failure handled there logs and answers with the same id.
 */
public final class RequestIdFilter extends OncePerRequestFilter {
    /** The request and response header. */
    public static final String HEADER = "X-Request-Id";
    /** The MDC key (and request attribute suffix) holding the id. */
    public static final String MDC_KEY = "requestId";

    private static final String ATTRIBUTE = RequestIdFilter.class.getName() + "." + MDC_KEY;
    private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** The id given to {@code request}, or null when the filter did not run for it. */
    public static @Nullable String of(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof String id ? id : null;
    }

    /** The id for a request that sent {@code header} (null: none): the header when it is sane, else a new one. */
    static String idFor(@Nullable String header) {
        return header != null && SANE.matcher(header).matches() ? header : UUID.randomUUID().toString();
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String id = of(request);
        if (id == null) {
            id = idFor(request.getHeader(HEADER));
            request.setAttribute(ATTRIBUTE, id);
        }
        response.setHeader(HEADER, id);
        MDC.put(MDC_KEY, id);
        try {
            chain.doFilter(request, response);
        } finally {
            MDC.remove(MDC_KEY);
        }
    }
}
