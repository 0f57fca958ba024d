package bench;

import java.util.HashMap;

/** A catalog product, referenced by order lines. */
final class Product {
    final String sku;
    final String title;
    final double price;
    int stock;
    final Category category;
    final HashMap<String, String> attributes = new HashMap<>();

    Product(String sku, String title, double price, int stock, Category category) {
        this.sku = sku;
        this.title = title;
        this.price = price;
        this.stock = stock;
        this.category = category;
    }
}
