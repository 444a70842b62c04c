package dev.shardstore.router.api;

import io.swagger.v3.oas.annotations.Hidden;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /swagger-ui.html}, springdoc's default address of Swagger UI, which users and tools try first: a redirect
 * (302) to the page, which this router serves at {@code /swagger-ui} ({@code /swagger-ui/index.html}; application.yml
 * {@code springdoc.swagger-ui.path}). Not an operation of the API.
 */
@Hidden
@RestController
class SwaggerUiRedirect {
    @GetMapping("/swagger-ui.html")
    ResponseEntity<Void> swaggerUi() {
        return ResponseEntity.status(HttpStatus.FOUND).location(URI.create("/swagger-ui/index.html")).build();
    }
}
