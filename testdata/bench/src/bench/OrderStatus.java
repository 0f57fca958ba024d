package bench;

/** The state of an order. */
enum OrderStatus {
    NEW, PAID, SHIPPED, DELIVERED, RETURNED, CANCELLED
}
