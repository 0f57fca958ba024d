package bench;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

/**
 * A request worker thread: it builds a batch of requests in a local
 * variable and blocks, so that the batch is reachable only from its stack.
 */
final class Worker implements Runnable {
    static final String[] PATHS = {
        "/api/orders", "/api/customers", "/api/cart", "/api/search", "/api/login", "/static/app.js",
    };

    private final long seed;
    private final int requests;
    private final CountDownLatch entered;
    private final CountDownLatch release;

    Worker(long seed, int requests, CountDownLatch entered, CountDownLatch release) {
        this.seed = seed;
        this.requests = requests;
        this.entered = entered;
        this.release = release;
    }

    @Override
    public void run() {
        serve();
    }

    private void serve() {
        SplittableRandom rnd = new SplittableRandom(seed);
        ArrayList<Request> batch = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            batch.add(new Request(PATHS[rnd.nextInt(PATHS.length)], rnd.nextInt(1000),
                    new byte[32 + rnd.nextInt(224)]));
        }
        entered.countDown();
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Reference.reachabilityFence(batch);
    }
}
