/**
 * What a service's HTTP front answers when a request fails outside a controller: request ids, the request size limit,
 * and RFC 9457 problem bodies carrying MongoDB's error code in place of Spring's and Tomcat's default error pages.
 */
@NullMarked
package dev.shardstore.support.web;

import org.jspecify.annotations.NullMarked;
