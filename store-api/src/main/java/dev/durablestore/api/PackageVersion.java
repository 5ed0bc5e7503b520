package dev.durablestore.api;

/**
 * The opaque version of a deployed workflow package (M6), canonically a 64-character content hash.
 * The store keeps it verbatim and never parses it.
 *
 * @param value the version text, never null
 */
public record PackageVersion(String value) {
    /**
     * Validates the components (see the record's description).
     *
     * @param value the version text, never null
     */
    public PackageVersion {
        InvalidArgumentException.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
        return value;
    }
}
