package bench;

import java.util.SplittableRandom;

/** Deterministic text: person names, e-mail addresses, streets, identifiers. */
final class Names {
    private static final String[] SYLLABLES = {
        "an", "be", "ca", "do", "el", "fa", "gi", "ha", "is", "jo", "ka", "li", "ma", "ne",
        "or", "pa", "qu", "ra", "so", "ta", "ul", "va", "we", "xi", "yo", "za", "mi", "lo",
    };
    /** Names outside Latin-1: their Strings use the UTF-16 coder. */
    private static final String[] WIDE = {
        "Łukasz", "Światosław", "Дмитрий", "Σοφία", "Zoë Ł.", "Ирина", "Ğülşen", "Ōtsuka",
    };
    private static final String[] DOMAINS = {
        "example.com", "mail.example.org", "corp.example.net", "shop.example", "users.example.io",
    };
    private static final String[] STREET_KINDS = {"Street", "Avenue", "Road", "Lane", "Way", "Place"};
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static String word(SplittableRandom rnd, int syllables) {
        StringBuilder sb = new StringBuilder(syllables * 2);
        for (int i = 0; i < syllables; i++) {
            sb.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
        }
        sb.setCharAt(0, Character.toUpperCase(sb.charAt(0)));
        return sb.toString();
    }

    /** A person's name; about one in fifty is outside Latin-1. */
    static String person(SplittableRandom rnd) {
        String last = word(rnd, 2 + rnd.nextInt(3));
        if (rnd.nextInt(50) == 0) {
            return WIDE[rnd.nextInt(WIDE.length)] + " " + last;
        }
        return word(rnd, 2 + rnd.nextInt(2)) + " " + last;
    }

    static String email(SplittableRandom rnd, long id) {
        return word(rnd, 3).toLowerCase() + "." + id + "@" + DOMAINS[rnd.nextInt(DOMAINS.length)];
    }

    static String street(SplittableRandom rnd) {
        return (1 + rnd.nextInt(9999)) + " " + word(rnd, 3) + " " + STREET_KINDS[rnd.nextInt(STREET_KINDS.length)];
    }

    static String hex(SplittableRandom rnd, String prefix, int digits) {
        char[] c = new char[prefix.length() + digits];
        prefix.getChars(0, prefix.length(), c, 0);
        for (int i = prefix.length(); i < c.length; i++) {
            c[i] = HEX[rnd.nextInt(16)];
        }
        return new String(c);
    }

    private Names() {
    }
}
