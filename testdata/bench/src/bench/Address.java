package bench;

/** A postal address; city and country are shared strings. */
final class Address {
    final String street;
    final String city;
    final int zip;
    final String country;

    Address(String street, String city, int zip, String country) {
        this.street = street;
        this.city = city;
        this.zip = zip;
        this.country = country;
    }
}
