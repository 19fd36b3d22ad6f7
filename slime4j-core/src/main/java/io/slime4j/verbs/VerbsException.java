package io.slime4j.verbs;

/**
 * The verbs exception family: a request the device refused at the call (wrong queue pair state,
 * full queue, overflowed completion queue, closed resource). The message says what failed, on
 * which queue pair, and what to do. Argument errors are {@link IllegalArgumentException}s.
 */
public class VerbsException extends RuntimeException {
    public VerbsException(String message) {
        super(message);
    }

    public VerbsException(String message, Throwable cause) {
        super(message, cause);
    }
}
