package dev.durablestore.console;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Double-submit CSRF tokens: the console sets the token in an HttpOnly, SameSite=Strict cookie and
 * hands it to its own page, which sends it back in a header with every action. An action is taken
 * only when header and cookie carry the same token and the token bears this console's signature
 * (an HMAC under a key made when the console starts), so a cookie planted by another site does not
 * pass either.
 */
final class Csrf {

    static final String COOKIE = "DS_CONSOLE_CSRF";
    static final String HEADER = "X-Console-CSRF";

    private final SecureRandom random = new SecureRandom();
    private final byte[] key = new byte[32];

    Csrf() {
        random.nextBytes(key);
    }

    String newToken() {
        byte[] nonce = new byte[18];
        random.nextBytes(nonce);
        String n = Base64.getUrlEncoder().withoutPadding().encodeToString(nonce);
        return n + "." + sign(n);
    }

    boolean valid(String token) {
        if (token == null) {
            return false;
        }
        int dot = token.indexOf('.');
        if (dot <= 0) {
            return false;
        }
        String expected = sign(token.substring(0, dot));
        return MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII),
                token.substring(dot + 1).getBytes(StandardCharsets.US_ASCII));
    }

    boolean matches(String cookie, String header) {
        return valid(cookie)
                && header != null
                && MessageDigest.isEqual(
                        cookie.getBytes(StandardCharsets.US_ASCII), header.getBytes(StandardCharsets.US_ASCII));
    }

    private String sign(String nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(mac.doFinal(nonce.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
