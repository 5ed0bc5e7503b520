package dev.durablestore.sqlite.internal;

import java.sql.SQLException;

/** Builds simple {@link WriteCommand}s from a lambda. */
final class Commands {

    /** The body of a simple command. */
    @FunctionalInterface
    interface Body<T> {
        T run(DbConnection c) throws SQLException;
    }

    private Commands() {}

    static <T> WriteCommand<T> of(String name, boolean wakesClaimers, Body<T> body) {
        return new WriteCommand<>() {
            @Override
            public T execute(DbConnection c) throws SQLException {
                return body.run(c);
            }

            @Override
            public boolean wakesClaimers() {
                return wakesClaimers;
            }

            @Override
            public String name() {
                return name;
            }
        };
    }
}
