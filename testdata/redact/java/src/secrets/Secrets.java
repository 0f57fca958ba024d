package secrets;

import java.util.HashMap;
import java.util.Map;

/**
 * Holds known secrets in every place hprofctl redact must clear: a String,
 * a char[], a byte[], a long field, a HashMap key, a thread's name and (from
 * the command line) the -Dsecrets.password system property. Prints READY
 * and sleeps until killed.
 */
public final class Secrets {
    static final String STRING = "S3cr3t-String-Hunter2";
    static final long LONG = 0x5EC2E7C0FFEE1234L;

    final String string;
    final char[] chars;
    final byte[] bytes;
    final long number;
    final Map<String, Integer> map = new HashMap<>();

    Secrets() {
        string = new String(STRING.toCharArray());
        chars = "S3cr3t-Char-Array-Swordfish".toCharArray();
        bytes = "S3cr3t-Byte-Array-Opensesame".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        number = LONG;
        map.put(new String("S3cr3t-Map-Key-Xyzzy"), 42);
    }

    static Secrets held;

    public static void main(String[] args) throws Exception {
        held = new Secrets();
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // ends the thread
            }
        }, "S3cr3t-Thread-Name-Plugh");
        t.setDaemon(true);
        t.start();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
