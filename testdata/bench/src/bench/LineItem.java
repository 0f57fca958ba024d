package bench;

/** One line of an order. */
final class LineItem {
    final Product product;
    final int quantity;
    final double unitPrice;

    LineItem(Product product, int quantity, double unitPrice) {
        this.product = product;
        this.quantity = quantity;
        this.unitPrice = unitPrice;
    }
}
