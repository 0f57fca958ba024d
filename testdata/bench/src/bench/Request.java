package bench;

/** A request of a batch a worker thread holds in a local variable. */
final class Request {
    final String path;
    final Integer attempt;
    final byte[] body;

    Request(String path, Integer attempt, byte[] body) {
        this.path = path;
        this.attempt = attempt;
        this.body = body;
    }
}
