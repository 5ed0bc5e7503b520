/**
 * The durable-store API: {@link dev.durablestore.api.ReactiveStore} (the event history, timers and
 * the transactional outbox), its model, options and exceptions, and the 31 event kinds. No I/O;
 * a backend module ({@code dev.durablestore.sqlite}, {@code dev.durablestore.r2dbc}) provides the
 * store. {@code dev.durablestore.api.internal} holds checks the store modules share and is not API:
 * it is exported only to them.
 */
module dev.durablestore.api {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;
    requires static transitive com.google.errorprone.annotations;

    exports dev.durablestore.api;
    exports dev.durablestore.api.event;
    exports dev.durablestore.api.internal to
            dev.durablestore.core,
            dev.durablestore.sqlite,
            dev.durablestore.r2dbc,
            dev.durablestore.tck;
}
