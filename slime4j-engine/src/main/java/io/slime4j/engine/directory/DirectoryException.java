package io.slime4j.engine.directory;

/** A directory could not be reached or refused a request; the message names the directory. */
public class DirectoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With the directory's URL in front of {@code message}. */
    public DirectoryException(String url, String message, Throwable cause) {
        super("directory " + url + ": " + message, cause);
    }
}
