package bench;

/** An order: its lines and a reference back to its customer. */
final class Order {
    final long orderId;
    final long placedAt;
    double total;
    OrderStatus status;
    final LineItem[] items;
    final Customer customer;

    Order(long orderId, long placedAt, int lines, Customer customer) {
        this.orderId = orderId;
        this.placedAt = placedAt;
        this.items = new LineItem[lines];
        this.customer = customer;
    }
}
