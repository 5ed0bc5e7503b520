/**
 * The behaviour every backend shares, written once ({@link dev.durablestore.core.AbstractReactiveStore}
 * over the storage SPI), the JSON {@link dev.durablestore.core.codec.EventCodec} and the pure
 * history projections. Applications use the codec and the projections; the storage SPI
 * ({@code dev.durablestore.core.storage}) and the backends' shared parts
 * ({@code dev.durablestore.core.internal}) are exported only to the durable-store modules.
 */
module dev.durablestore.core {
    requires transitive dev.durablestore.api;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.core;
    requires org.slf4j;
    requires static transitive com.google.errorprone.annotations;

    exports dev.durablestore.core;
    exports dev.durablestore.core.codec;
    exports dev.durablestore.core.projection;
    exports dev.durablestore.core.storage to
            dev.durablestore.sqlite,
            dev.durablestore.r2dbc,
            dev.durablestore.micrometer;
    exports dev.durablestore.core.internal to
            dev.durablestore.sqlite,
            dev.durablestore.r2dbc,
            dev.durablestore.micrometer,
            dev.durablestore.tck,
            dev.durablestore.bench;
}
