package dev.durablestore.spring;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/** A host application's security that lets anyone in (the starters' test class paths have Spring Security). */
@Configuration(proxyBeanMethods = false)
class OpenSecurity {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.authorizeExchange(a -> a.anyExchange().permitAll()).build();
    }
}
