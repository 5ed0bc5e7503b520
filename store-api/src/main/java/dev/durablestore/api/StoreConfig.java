package dev.durablestore.api;

import reactor.core.publisher.Mono;

/**
 * The configuration of a backend's store, and the one way every backend opens: {@code open()}
 * returns a cold {@link Mono} that opens the store (creating and migrating its schema, S6–S9) when
 * subscribed, without blocking the subscriber's thread. Each backend's configuration implements
 * it ({@code SqliteStoreConfig}, {@code R2dbcStoreConfig}), so code that is handed a configuration
 * opens any backend alike:
 *
 * <pre>{@code
 * StoreConfig<? extends ReactiveStore> config = SqliteStoreConfig.of(Path.of("app.db"));
 * config.open()
 *         .flatMap(store -> work(store).then(store.closeAsync()))
 *         .subscribe();
 * }</pre>
 *
 * @param <S> the store it opens
 */
public interface StoreConfig<S extends ReactiveStore> {

    /**
     * Opens a store with this configuration, once per subscription.
     *
     * @return the open store; fails with {@link BackendException} when the database cannot be opened
     *     or its schema applied (S20), with its {@link SchemaVersionException} when the database
     *     records a newer schema version than this library's (S29; nothing is written to it then),
     *     and with {@link InvalidArgumentException} when the configuration cannot be used
     */
    Mono<S> open();
}
