package bench;

import java.lang.ref.WeakReference;
import java.util.HashMap;

/** A web session: a weak reference to its customer and an attribute map. */
final class Session {
    final String id;
    final WeakReference<Customer> customer;
    final long createdAt;
    long lastAccess;
    final HashMap<String, Object> attributes = new HashMap<>();

    Session(String id, Customer customer, long createdAt) {
        this.id = id;
        this.customer = new WeakReference<>(customer);
        this.createdAt = createdAt;
        this.lastAccess = createdAt;
    }
}
