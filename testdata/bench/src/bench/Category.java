package bench;

import java.util.ArrayList;

/** A node of the product category tree: parent, children array and products. */
final class Category {
    final String name;
    final Category parent;
    final int depth;
    Category[] children;
    final ArrayList<Product> products = new ArrayList<>();

    Category(String name, Category parent, int depth) {
        this.name = name;
        this.parent = parent;
        this.depth = depth;
    }
}
