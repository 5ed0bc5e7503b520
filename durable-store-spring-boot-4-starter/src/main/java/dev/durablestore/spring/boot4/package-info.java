/**
 * The durable-store starter for Spring Boot 4.0 and 4.1: this line's Actuator health indicator. The store,
 * its properties ({@code durablestore.*}), the reaper, the dispatcher, metrics, observations and the
 * console come from {@code dev.durablestore.spring}, shared by both starters.
 */
package dev.durablestore.spring.boot4;
