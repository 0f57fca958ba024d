package agentcheck;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * gen.sh's independent reader of the agent's binary output, so that the
 * known counts can be checked in it without hprofctl. Run it in its own JVM:
 *
 * <pre>
 *   java agentcheck.BinaryCounts heap FILE    "CLASS COUNT" per class with instances or object arrays
 *   java agentcheck.BinaryCounts sites FILE   "LIVEBYTES LIVEOBJS ALLOCBYTES ALLOCOBJS CLASS" per ALLOC_SITES entry
 * </pre>
 *
 * Class names are printed as the file spells them. It reads only what the
 * hprof agent writes (identifier size 4 or 8, no HotSpot-only records) and
 * fails on anything else.
 */
public final class BinaryCounts {
    private final DataInputStream in;
    private int idSize;
    private final Map<Long, String> strings = new HashMap<>();
    private final Map<Long, Long> classNameIds = new HashMap<>(); // class object id -> name id
    private final Map<Integer, Long> classSerials = new HashMap<>(); // class serial -> class object id
    private final Map<Long, Long> counts = new HashMap<>(); // class object id -> objects

    private BinaryCounts(DataInputStream in) {
        this.in = in;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !(args[0].equals("heap") || args[0].equals("sites"))) {
            throw new IllegalArgumentException("usage: BinaryCounts heap|sites FILE");
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(args[1])))) {
            new BinaryCounts(in).read(args[0].equals("sites"));
        }
    }

    private void read(boolean sites) throws IOException {
        StringBuilder header = new StringBuilder();
        for (int b = in.readUnsignedByte(); b != 0; b = in.readUnsignedByte()) {
            header.append((char) b);
        }
        if (!header.toString().startsWith("JAVA PROFILE 1.0.")) {
            throw new IOException("not an HPROF file: " + header);
        }
        idSize = in.readInt();
        in.readLong(); // timestamp
        while (true) {
            int tag;
            try {
                tag = in.readUnsignedByte();
            } catch (EOFException e) {
                break;
            }
            in.readInt(); // time offset
            long length = in.readInt() & 0xFFFFFFFFL;
            switch (tag) {
                case 0x01:
                    long id = readId();
                    byte[] utf8 = new byte[(int) (length - idSize)];
                    in.readFully(utf8);
                    strings.put(id, new String(utf8, java.nio.charset.StandardCharsets.UTF_8));
                    break;
                case 0x02:
                    int serial = in.readInt();
                    long classId = readId();
                    in.readInt(); // trace serial
                    classNameIds.put(classId, readId());
                    classSerials.put(serial, classId);
                    break;
                case 0x06:
                    readSites(sites);
                    break;
                case 0x0C:
                case 0x1C:
                    readHeapDump(length);
                    break;
                default:
                    in.skipNBytes(length);
                    break;
            }
        }
        if (!sites) {
            Map<String, Long> byName = new TreeMap<>();
            for (Map.Entry<Long, Long> e : counts.entrySet()) {
                byName.merge(className(e.getKey()), e.getValue(), Long::sum);
            }
            for (Map.Entry<String, Long> e : byName.entrySet()) {
                System.out.println(e.getKey() + " " + e.getValue());
            }
        }
    }

    private String className(long classId) {
        Long nameId = classNameIds.get(classId);
        String name = nameId == null ? null : strings.get(nameId);
        return name == null ? String.format("<class 0x%x>", classId) : name;
    }

    private long readId() throws IOException {
        return idSize == 4 ? in.readInt() & 0xFFFFFFFFL : in.readLong();
    }

    private void readSites(boolean print) throws IOException {
        in.readUnsignedShort(); // flags
        in.readInt(); // cutoff ratio
        in.readInt(); // total live bytes
        in.readInt(); // total live instances
        in.readLong(); // total bytes allocated
        in.readLong(); // total instances allocated
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            in.readUnsignedByte(); // array indicator
            int classSerial = in.readInt();
            in.readInt(); // trace serial
            long liveBytes = in.readInt() & 0xFFFFFFFFL;
            long liveObjs = in.readInt() & 0xFFFFFFFFL;
            long allocBytes = in.readInt() & 0xFFFFFFFFL;
            long allocObjs = in.readInt() & 0xFFFFFFFFL;
            if (print) {
                Long classId = classSerials.get(classSerial);
                String name = classId == null ? "<class serial " + classSerial + ">" : className(classId);
                System.out.println(liveBytes + " " + liveObjs + " " + allocBytes + " " + allocObjs + " " + name);
            }
        }
    }

    private void readHeapDump(long length) throws IOException {
        long end = length;
        long done = 0;
        while (done < end) {
            int sub = in.readUnsignedByte();
            done += 1 + readSubRecord(sub);
        }
        if (done != end) {
            throw new IOException("heap dump sub-records overrun their record by " + (done - end) + " bytes");
        }
    }

    /** Reads one heap-dump sub-record after its tag; returns its length in bytes. */
    private long readSubRecord(int sub) throws IOException {
        switch (sub) {
            case 0xFF: // ROOT_UNKNOWN
            case 0x05: // ROOT_STICKY_CLASS
            case 0x07: // ROOT_MONITOR_USED
                return skip(idSize);
            case 0x01: // ROOT_JNI_GLOBAL
                return skip(2L * idSize);
            case 0x02: // ROOT_JNI_LOCAL
            case 0x03: // ROOT_JAVA_FRAME
            case 0x08: // ROOT_THREAD_OBJ
                return skip(idSize + 8L);
            case 0x04: // ROOT_NATIVE_STACK
            case 0x06: // ROOT_THREAD_BLOCK
                return skip(idSize + 4L);
            case 0x20:
                return readClassDump();
            case 0x21: {
                readId();
                in.readInt();
                long classId = readId();
                long n = in.readInt() & 0xFFFFFFFFL;
                in.skipNBytes(n);
                counts.merge(classId, 1L, Long::sum);
                return 2L * idSize + 8 + n;
            }
            case 0x22: {
                readId();
                in.readInt();
                long n = in.readInt() & 0xFFFFFFFFL;
                long classId = readId();
                in.skipNBytes(n * idSize);
                counts.merge(classId, 1L, Long::sum);
                return 2L * idSize + 8 + n * idSize;
            }
            case 0x23: {
                readId();
                in.readInt();
                long n = in.readInt() & 0xFFFFFFFFL;
                int type = in.readUnsignedByte();
                long bytes = n * typeSize(type);
                in.skipNBytes(bytes);
                return idSize + 9 + bytes;
            }
            default:
                throw new IOException(String.format("unknown heap-dump sub-record 0x%02x", sub));
        }
    }

    private long readClassDump() throws IOException {
        long n = 7L * idSize + 8;
        in.skipNBytes(7L * idSize + 8);
        int constants = in.readUnsignedShort();
        n += 2;
        for (int i = 0; i < constants; i++) {
            in.readUnsignedShort();
            int type = in.readUnsignedByte();
            n += 3 + skip(typeSize(type));
        }
        int statics = in.readUnsignedShort();
        n += 2;
        for (int i = 0; i < statics; i++) {
            readId();
            int type = in.readUnsignedByte();
            n += idSize + 1 + skip(typeSize(type));
        }
        int fields = in.readUnsignedShort();
        n += 2;
        for (int i = 0; i < fields; i++) {
            readId();
            in.readUnsignedByte();
            n += idSize + 1;
        }
        return n;
    }

    private long skip(long n) throws IOException {
        in.skipNBytes(n);
        return n;
    }

    private int typeSize(int type) throws IOException {
        switch (type) {
            case 2:
                return idSize;
            case 4:
            case 8:
                return 1;
            case 5:
            case 9:
                return 2;
            case 6:
            case 10:
                return 4;
            case 7:
            case 11:
                return 8;
            default:
                throw new IOException("unknown basic type " + type);
        }
    }
}
