package io.slime4j.cli;

/**
 * A failure the command reports as one line, without a stack trace (unless {@code --debug}):
 * an unreachable peer, a port in use, a peer that died, a verification mismatch.
 */
final class CliException extends RuntimeException {
    private final int exitCode;

    CliException(String message) {
        this(message, 1, null);
    }

    CliException(String message, Throwable cause) {
        this(message, 1, cause);
    }

    CliException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** The process exit code: 1 for a failed run, 2 for bad arguments. */
    int exitCode() {
        return exitCode;
    }
}
