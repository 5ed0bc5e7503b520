package dev.durablestore.spring;

import dev.durablestore.api.InvalidArgumentException;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.springframework.validation.Errors;

/**
 * One group of the starter's properties handed, one setting at a time, to the library type whose
 * checks they are (the way db-scheduler's starter leaves its checks to its builder): a value the
 * library refuses is reported under the property its argument names, in the library's words (an
 * {@link InvalidArgumentException} naming {@code readerPoolSize} in the {@code sqlite} group
 * becomes {@code durablestore.sqlite.reader-pool-size must be between 1 and 64, was 65}), and the
 * group's other settings are still applied, so that start-up reports every bad property at once.
 * The starter's own rules (for settings no library type has) are checked the same way.
 *
 * @param <T> the library's immutable option type the group becomes
 */
final class PropertyGroup<T> {

    private static final Pattern WORD_START = Pattern.compile("(?=\\p{Upper})");

    private final String group;
    private final Errors errors;
    private T value;

    private PropertyGroup(String group, T defaults, Errors errors) {
        this.group = group;
        this.value = defaults;
        this.errors = errors;
    }

    /**
     * @param group the group's path below {@code durablestore}, e.g. {@code sqlite}; empty for the
     *     top level
     * @param defaults the library's value the settings are applied to
     * @param errors where a refused setting is reported; {@code null} once the properties are
     *     validated, to throw it instead (as an {@link InvalidArgumentException} naming the property)
     * @param <T> the library's option type
     * @return the group, holding {@code defaults}
     */
    static <T> PropertyGroup<T> of(String group, T defaults, Errors errors) {
        return new PropertyGroup<>(group, defaults, errors);
    }

    /**
     * @param setting applies one property to the library's value (a {@code with…} call), which
     *     checks it
     * @return this group, holding the value with the setting applied, or unchanged when the library
     *     refused it (reported)
     */
    PropertyGroup<T> set(UnaryOperator<T> setting) {
        try {
            value = setting.apply(value);
        } catch (InvalidArgumentException e) {
            refuse(e);
        }
        return this;
    }

    /**
     * @param rule a check of the starter's own, failing with an {@link InvalidArgumentException}
     *     naming the setting
     * @return this group
     */
    PropertyGroup<T> check(Runnable rule) {
        try {
            rule.run();
        } catch (InvalidArgumentException e) {
            refuse(e);
        }
        return this;
    }

    /** @return the library's value with every accepted setting applied */
    T get() {
        return value;
    }

    /**
     * Reports a refusal under the property its argument names: the argument's last segment (a
     * {@code scope.taskQueue} is the group's {@code taskQueue}), in the group.
     */
    private void refuse(InvalidArgumentException e) {
        String argument = e.argument().substring(e.argument().lastIndexOf('.') + 1);
        String field = group.isEmpty() ? argument : group + "." + argument;
        String property = DurableStoreProperties.PREFIX + "." + kebab(field);
        if (errors == null) {
            throw new InvalidArgumentException(property, e.problem());
        }
        errors.rejectValue(field, "durablestore.invalid", property + " " + e.problem());
    }

    /** @return {@code sqlite.readerPoolSize} as its property is written, {@code sqlite.reader-pool-size} */
    static String kebab(String field) {
        return String.join("-", WORD_START.split(field)).toLowerCase(Locale.ROOT);
    }
}
