package dev.shardstore.support.web;

import dev.shardstore.contracts.bson.BsonLimits;
import jakarta.servlet.DispatcherType;
import org.apache.catalina.Host;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.error.ErrorAttributes;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * What every service's HTTP front answers when a request fails outside a controller: request ids
 * ({@link RequestIdFilter}), the body size limit ({@link RequestSizeFilter}), problem+json on the error path
 * ({@link ProblemErrorController}) and for what Tomcat refuses itself ({@link ProblemErrorReportValve}). Registered
 * before Spring Boot's error configuration, so that its {@code BasicErrorController} and default error body never
 * exist.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class WebErrorsAutoConfiguration {

    @Bean
    FilterRegistrationBean<RequestIdFilter> requestIdFilter() {
        FilterRegistrationBean<RequestIdFilter> registration = new FilterRegistrationBean<>(new RequestIdFilter());
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @Bean
    FilterRegistrationBean<RequestSizeFilter> requestSizeFilter() {
        FilterRegistrationBean<RequestSizeFilter> registration = new FilterRegistrationBean<>(new RequestSizeFilter(BsonLimits.MAX_MESSAGE_SIZE));
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
        return registration;
    }

    /**
     * Tomcat's own refusals (before any filter runs) as problems too. Ordered last, so that its context customizer
     * runs after Spring Boot's, which adds an HTML error report valve.
     */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> problemErrorReportValve() {
        return factory -> factory.addContextCustomizers(context -> ProblemErrorReportValve.install((Host) context.getParent()));
    }

    /** Takes Spring Boot's {@link ErrorAttributes} (its {@code DefaultErrorAttributes} records the exception). */
    @Bean
    ProblemErrorController problemErrorController(ErrorAttributes errorAttributes) {
        return new ProblemErrorController(errorAttributes);
    }
}
