package io.slime4j.shm;

import io.slime4j.verbs.VerbsException;

/** The shared-memory engine could not do what was asked of the operating system (map, open, wait). */
public final class ShmException extends VerbsException {
    public ShmException(String message) {
        super(message);
    }

    public ShmException(String message, Throwable cause) {
        super(message, cause);
    }
}
