package io.slime4j.endpoint;

/** The {@code single} selector: every request on lane 0. */
final class SingleSelector implements QpSelector {
    static final SingleSelector INSTANCE = new SingleSelector();

    private SingleSelector() {
    }

    @Override
    public int select(QpOpType type, long messageId, int qps) {
        return 0;
    }

    @Override
    public String toString() {
        return "single";
    }
}
