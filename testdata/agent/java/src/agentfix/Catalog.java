package agentfix;

import java.util.HashMap;

/** A static collection with a known number of entries: 100 keys "key-00".."key-99". */
final class Catalog {
    static final int SIZE = 100;

    static final HashMap<String, Entry> MAP = new HashMap<>();

    private Catalog() {
    }

    static void fill() {
        for (int i = 0; i < SIZE; i++) {
            MAP.put(String.format("key-%02d", i), new Entry(i));
        }
    }
}
