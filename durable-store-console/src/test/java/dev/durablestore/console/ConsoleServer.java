package dev.durablestore.console;

import java.time.Duration;
import java.util.List;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.handler.WebFluxResponseStatusExceptionHandler;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** A real HTTP server on a free loopback port serving router functions, as a host application would. */
final class ConsoleServer implements AutoCloseable {

    private final DisposableServer server;

    /**
     * @param routes what it serves
     * @param filters the host's filters in front of the routes, e.g. Spring Security's
     */
    ConsoleServer(RouterFunction<ServerResponse> routes, WebFilter... filters) {
        HttpHandler handler = filters.length == 0
                ? RouterFunctions.toHttpHandler(routes)
                : WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes))
                        .filters(list -> list.addAll(List.of(filters)))
                        // as toHttpHandler and a Spring Boot host: a 404 (the browser's favicon.ico) is a 404,
                        // not a 500 with a stack trace
                        .exceptionHandler(new WebFluxResponseStatusExceptionHandler())
                        .build();
        server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle(new ReactorHttpHandlerAdapter(handler))
                .bindNow(Duration.ofSeconds(20));
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    @Override
    public void close() {
        server.disposeNow(Duration.ofSeconds(5));
    }
}
