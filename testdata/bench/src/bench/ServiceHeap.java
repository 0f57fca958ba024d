package bench;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fills the heap the way a long-running service does (a customer store with
 * orders, a product catalog under a category tree, web sessions, an audit
 * log chain, metrics, buffers, worker threads holding request batches),
 * prints the count of every bench.* class as "count CLASS N", then READY,
 * and sleeps until killed. Every value comes from a fixed seed.
 *
 * System property bench.customers sets the size (default 1,250,000, for a
 * dump of about 2.3 GB with about 40 million objects).
 *
 * No lambdas or anonymous classes: they would add synthetic bench.* classes
 * to the histogram.
 */
public final class ServiceHeap {
    static final long SEED = 20240611L;
    static final int CATEGORY_FANOUT = 6;
    static final int CATEGORY_LEVELS = 6;
    static final int PRODUCTS = 60_000;
    static final int AUDIT_EVENTS = 2_000_000;
    static final int METRIC_SAMPLES = 1_000_000;
    static final int RECENT = 200_000;
    static final int WORKERS = 8;
    static final int REQUESTS_PER_WORKER = 40_000;
    static final int PREVIEWS = 5_000;
    static final int DISCARDED = 100_000;

    static final String[] COUNTRIES = new String[40];
    static final String[] CITIES = new String[500];
    static final String[] MESSAGES = new String[500];
    static final String[] COLORS = {"red", "green", "blue", "black", "white", "silver", "navy", "olive"};
    static final String[] SIZES = {"XS", "S", "M", "L", "XL", "XXL"};
    static final String[] LOCALES = {"en_US", "en_GB", "de_DE", "fr_FR", "pl_PL", "ja_JP", "pt_BR"};
    static final String[] PAGES = {"/", "/cart", "/checkout", "/account", "/search", "/orders", "/help"};

    /** Customers by id: the biggest structure, boxed Long keys. */
    static ConcurrentHashMap<Long, Customer> customers = new ConcurrentHashMap<>();
    /** Products by SKU. */
    static HashMap<String, Product> catalog = new HashMap<>();
    /** Root of the category tree. */
    static Category categories;
    /** Web sessions by session id. */
    static HashMap<String, Session> sessions = new HashMap<>();
    /** Recently seen customers, weakly. */
    static ArrayList<WeakReference<Customer>> recent = new ArrayList<>();
    /** Newest audit event; each links to the one before. */
    static AuditEvent audit;
    /** Latency samples, boxed. */
    static LinkedList<Long> metrics = new LinkedList<>();
    /** Large primitive arrays: time series, histogram buckets, an I/O buffer, weights. */
    static long[][] series;
    static int[] latencyBuckets;
    static byte[] ioBuffer;
    static double[] weights;
    /** Renderings that only WeakReferences reach. */
    static ArrayList<WeakReference<Preview>> previews = new ArrayList<>();
    /** Where each Discarded goes before the next one replaces it. */
    static volatile Discarded sink;

    static final CountDownLatch RELEASE = new CountDownLatch(1); // never counted down

    static int categoryCount;
    static int innerCategories;
    static final ArrayList<Category> LEAVES = new ArrayList<>();
    static final ArrayList<Product> PRODUCT_LIST = new ArrayList<>();
    static final ArrayList<Customer> CUSTOMER_LIST = new ArrayList<>();
    static long orderCount;
    static long lineCount;

    public static void main(String[] args) throws Exception {
        int customerCount = Integer.getInteger("bench.customers", 1_250_000);
        SplittableRandom rnd = new SplittableRandom(SEED);
        pools(rnd);
        categories = category(rnd, null, 0);
        products(rnd);
        customers(rnd, customerCount);
        sessions(rnd, customerCount / 4);
        recent(rnd);
        audit(rnd);
        metrics(rnd);
        arrays(rnd);
        CUSTOMER_LIST.clear();
        CUSTOMER_LIST.trimToSize();
        threads();

        // Collect the garbage of the build, then make the weakly reachable
        // previews and the unreachable Discarded objects: with an almost
        // empty young generation no GC is expected before the dump.
        System.gc();
        previews(rnd);
        discarded(rnd);

        count("bench.Customer", customerCount);
        count("bench.Address", customerCount);
        count("bench.Order", orderCount);
        count("[Lbench.LineItem;", orderCount);
        count("bench.LineItem", lineCount);
        count("bench.Product", PRODUCTS);
        count("bench.Category", categoryCount);
        count("[Lbench.Category;", innerCategories);
        count("bench.Session", customerCount / 4);
        count("bench.AuditEvent", AUDIT_EVENTS);
        count("bench.Request", (long) WORKERS * REQUESTS_PER_WORKER);
        count("bench.Worker", WORKERS);
        count("bench.Preview", PREVIEWS);
        count("bench.Discarded", DISCARDED);
        count("bench.OrderStatus", OrderStatus.values().length);
        System.out.println("READY");
        System.out.flush();
        while (true) {
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    static void count(String name, long n) {
        System.out.println("count " + name + " " + n);
    }

    static void pools(SplittableRandom rnd) {
        for (int i = 0; i < COUNTRIES.length; i++) {
            COUNTRIES[i] = Names.word(rnd, 3);
        }
        for (int i = 0; i < CITIES.length; i++) {
            CITIES[i] = Names.word(rnd, 2 + rnd.nextInt(3));
        }
        for (int i = 0; i < MESSAGES.length; i++) {
            MESSAGES[i] = "event " + i + ": " + Names.word(rnd, 4) + " " + Names.word(rnd, 3).toLowerCase();
        }
    }

    static Category category(SplittableRandom rnd, Category parent, int depth) {
        Category c = new Category(Names.word(rnd, 3), parent, depth);
        categoryCount++;
        if (depth + 1 < CATEGORY_LEVELS) {
            innerCategories++;
            c.children = new Category[CATEGORY_FANOUT];
            for (int i = 0; i < CATEGORY_FANOUT; i++) {
                c.children[i] = category(rnd, c, depth + 1);
            }
        } else {
            LEAVES.add(c);
        }
        return c;
    }

    static void products(SplittableRandom rnd) {
        for (int i = 0; i < PRODUCTS; i++) {
            Category leaf = LEAVES.get(rnd.nextInt(LEAVES.size()));
            Product p = new Product(Names.hex(rnd, "SKU-", 10), Names.word(rnd, 3) + " " + Names.word(rnd, 2),
                    1 + rnd.nextInt(100_000) / 100.0, rnd.nextInt(500), leaf);
            p.attributes.put("color", COLORS[rnd.nextInt(COLORS.length)]);
            p.attributes.put("size", SIZES[rnd.nextInt(SIZES.length)]);
            p.attributes.put("weight", Integer.toString(50 + rnd.nextInt(5000)));
            leaf.products.add(p);
            catalog.put(p.sku, p);
            PRODUCT_LIST.add(p);
        }
    }

    static void customers(SplittableRandom rnd, int n) {
        OrderStatus[] statuses = OrderStatus.values();
        long orderId = 50_000_000L;
        for (int i = 0; i < n; i++) {
            long id = 1_000_000L + i;
            Address a = new Address(Names.street(rnd), CITIES[rnd.nextInt(CITIES.length)],
                    10_000 + rnd.nextInt(89_999), COUNTRIES[rnd.nextInt(COUNTRIES.length)]);
            int orders = rnd.nextInt(7);
            Customer c = new Customer(id, Names.person(rnd), Names.email(rnd, id), a, orders);
            c.tier = rnd.nextInt(4);
            c.balance = rnd.nextInt(1_000_000) / 100.0;
            c.active = rnd.nextInt(10) != 0;
            c.lastSeen = 1_700_000_000_000L + rnd.nextLong(10_000_000_000L);
            for (int k = 0; k < orders; k++) {
                Order o = new Order(orderId++, c.lastSeen - rnd.nextLong(1_000_000_000L), 1 + rnd.nextInt(3), c);
                o.status = statuses[rnd.nextInt(statuses.length)];
                double total = 0;
                for (int j = 0; j < o.items.length; j++) {
                    Product p = PRODUCT_LIST.get(rnd.nextInt(PRODUCT_LIST.size()));
                    LineItem li = new LineItem(p, 1 + rnd.nextInt(5), p.price);
                    o.items[j] = li;
                    total += li.quantity * li.unitPrice;
                    lineCount++;
                }
                o.total = total;
                c.orders.add(o);
                orderCount++;
            }
            customers.put(id, c);
            CUSTOMER_LIST.add(c);
        }
    }

    static void sessions(SplittableRandom rnd, int n) {
        for (int i = 0; i < n; i++) {
            Customer c = CUSTOMER_LIST.get(rnd.nextInt(CUSTOMER_LIST.size()));
            Session s = new Session(Names.hex(rnd, "s-", 24), c, c.lastSeen - rnd.nextInt(3_600_000));
            s.attributes.put("locale", LOCALES[rnd.nextInt(LOCALES.length)]);
            s.attributes.put("cartSize", rnd.nextInt(300));
            s.attributes.put("lastPage", PAGES[rnd.nextInt(PAGES.length)]);
            s.attributes.put("score", rnd.nextDouble());
            sessions.put(s.id, s);
        }
    }

    static void recent(SplittableRandom rnd) {
        for (int i = 0; i < RECENT; i++) {
            recent.add(new WeakReference<>(CUSTOMER_LIST.get(rnd.nextInt(CUSTOMER_LIST.size()))));
        }
    }

    static void audit(SplittableRandom rnd) {
        long t = 1_700_000_000_000L;
        for (int i = 0; i < AUDIT_EVENTS; i++) {
            t += rnd.nextInt(1000);
            audit = new AuditEvent(audit, t, rnd.nextInt(16), MESSAGES[rnd.nextInt(MESSAGES.length)],
                    1_000_000L + rnd.nextInt(CUSTOMER_LIST.size()));
        }
    }

    static void metrics(SplittableRandom rnd) {
        for (int i = 0; i < METRIC_SAMPLES; i++) {
            metrics.add(1_000L + rnd.nextInt(2_000_000));
        }
    }

    static void arrays(SplittableRandom rnd) {
        series = new long[4][2_000_000];
        for (long[] s : series) {
            long v = 0;
            for (int i = 0; i < s.length; i++) {
                v += rnd.nextInt(201) - 100;
                s[i] = v;
            }
        }
        latencyBuckets = new int[4_000_000];
        for (int i = 0; i < latencyBuckets.length; i++) {
            latencyBuckets[i] = rnd.nextInt(64);
        }
        // A 128 MiB pooled buffer of which the first 16 MiB were filled (random bytes).
        ioBuffer = new byte[128 << 20];
        byte[] head = new byte[16 << 20];
        rnd.nextBytes(head);
        System.arraycopy(head, 0, ioBuffer, 0, head.length);
        weights = new double[1_000_000];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = rnd.nextDouble();
        }
    }

    static void threads() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(WORKERS);
        for (int i = 0; i < WORKERS; i++) {
            Thread t = new Thread(new Worker(SEED + i, REQUESTS_PER_WORKER, entered, RELEASE), "request-worker-" + i);
            t.setDaemon(true);
            t.start();
        }
        entered.await();

        ReentrantLock lock = new ReentrantLock();
        CountDownLatch locked = new CountDownLatch(1);
        Thread holder = new Thread(new LockHolder(lock, locked, RELEASE), "cache-refresher");
        holder.setDaemon(true);
        holder.start();
        locked.await();
        Thread waiter = new Thread(new LockWaiter(lock), "cache-reader");
        waiter.setDaemon(true);
        waiter.start();
        while (!lock.hasQueuedThread(waiter)) {
            Thread.sleep(10);
        }
    }

    static void previews(SplittableRandom rnd) {
        for (int i = 0; i < PREVIEWS; i++) {
            previews.add(new WeakReference<>(new Preview(new byte[256 + rnd.nextInt(1024)])));
        }
    }

    static void discarded(SplittableRandom rnd) {
        for (int i = 0; i < DISCARDED; i++) {
            sink = new Discarded(Names.hex(rnd, "tmp-", 12), rnd.nextLong());
        }
        sink = null;
    }

    private ServiceHeap() {
    }
}
