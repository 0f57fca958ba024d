package bench;

import java.util.ArrayList;

/** A customer record of the service's in-memory store. */
final class Customer {
    final long id;
    final String name;
    final String email;
    int tier;
    double balance;
    final Address address;
    final ArrayList<Order> orders;
    boolean active;
    long lastSeen;

    Customer(long id, String name, String email, Address address, int orders) {
        this.id = id;
        this.name = name;
        this.email = email;
        this.address = address;
        this.orders = new ArrayList<>(orders);
    }
}
