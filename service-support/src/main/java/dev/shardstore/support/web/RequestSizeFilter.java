package dev.shardstore.support.web;

import dev.shardstore.contracts.bson.BsonLimits;
import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;
import dev.shardstore.contracts.http.InternalApi;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies over {@link BsonLimits#MAX_MESSAGE_SIZE} bytes with a 413 {@code BSONObjectTooLarge}
 * (10334) problem before they are read into memory: at once when {@code Content-Length} says so, otherwise (a
 * chunked body) when the reader passes the limit, by failing the read with an {@link IOException} whose cause is the
 * {@link CommandException}, which {@link Problems#of} finds.
 *
 * <p>The internal command endpoint ({@link InternalApi}) is not limited here: its servlet applies the same limit itself
 * and answers a BSON error reply, as its callers expect ({@code InternalCommandServlet}).
 */
public final class RequestSizeFilter extends OncePerRequestFilter {
    private static final String INTERNAL_PREFIX = InternalApi.COMMAND_PATH.substring(0, InternalApi.COMMAND_PATH.indexOf("/databases"));

    private final long limit;

    /** @param limit the largest body accepted, in bytes */
    public RequestSizeFilter(long limit) {
        this.limit = limit;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return request.getRequestURI().startsWith(INTERNAL_PREFIX);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long length = request.getContentLengthLong();
        if (length > limit) {
            Problems.write(response, Problems.of(tooLarge(length + " bytes")), RequestIdFilter.of(request));
            return;
        }
        chain.doFilter(length >= 0 ? request : new LimitedRequest(request), response);
    }

    private CommandException tooLarge(String size) {
        return new CommandException(ErrorCode.BSONObjectTooLarge,
                "request body of " + size + " is over the limit of " + limit + " bytes");
    }

    /** A request whose body stream fails once more than {@link #limit} bytes were read. */
    private final class LimitedRequest extends HttpServletRequestWrapper {
        private @Nullable ServletInputStream limited;

        LimitedRequest(HttpServletRequest request) {
            super(request);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (limited == null) {
                limited = new LimitedStream(super.getInputStream());
            }
            return limited;
        }
    }

    private final class LimitedStream extends ServletInputStream {
        private final ServletInputStream in;
        private long read;

        LimitedStream(ServletInputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = in.read(buf, off, len);
            count(Math.max(n, 0));
            return n;
        }

        private void count(int n) throws IOException {
            read += n;
            if (read > limit) {
                throw new IOException("request body too large", tooLarge("more than " + limit + " bytes"));
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
