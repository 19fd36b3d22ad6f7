package io.slime4j.shm;

/**
 * The address of an shm device, {@code shm:PID:FD:INODE}: the process, the descriptor of its
 * device file in that process, and the file's inode (checked after opening, so a reused
 * descriptor number is never mistaken for the device).
 */
record ShmAddress(int pid, int fd, long inode) {
    static final String SCHEME = "shm:";

    static ShmAddress parse(String text) {
        if (text == null || !text.startsWith(SCHEME)) {
            throw new IllegalArgumentException("not an shm address (shm:PID:FD:INODE): " + text);
        }
        String[] parts = text.substring(SCHEME.length()).split(":");
        try {
            if (parts.length != 3) {
                throw new NumberFormatException("three fields expected");
            }
            return new ShmAddress(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad shm address (shm:PID:FD:INODE): " + text, e);
        }
    }

    @Override
    public String toString() {
        return SCHEME + pid + ":" + fd + ":" + inode;
    }
}
