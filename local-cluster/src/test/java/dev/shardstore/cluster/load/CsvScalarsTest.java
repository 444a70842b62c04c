package dev.shardstore.cluster.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CsvScalarsTest {

    @Test
    void integersBecomeIntOrLong() {
        assertThat(CsvScalars.parse("0")).isEqualTo(0);
        assertThat(CsvScalars.parse("-17")).isEqualTo(-17);
        assertThat(CsvScalars.parse("2147483647")).isEqualTo(Integer.MAX_VALUE);
        assertThat(CsvScalars.parse("2147483648")).isEqualTo(2147483648L);
        assertThat(CsvScalars.parse("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void decimalsBecomeDoubles() {
        assertThat(CsvScalars.parse("1.5")).isEqualTo(1.5);
        assertThat(CsvScalars.parse("-0.25")).isEqualTo(-0.25);
        assertThat(CsvScalars.parse("2.0")).isEqualTo(2.0);
        assertThat(CsvScalars.parse("6.02e23")).isEqualTo(6.02e23);
        assertThat(CsvScalars.parse("1E-3")).isEqualTo(0.001);
    }

    @Test
    void everythingElseStaysText() {
        assertThat(CsvScalars.parse("")).isEqualTo("");
        assertThat(CsvScalars.parse("Paris")).isEqualTo("Paris");
        assertThat(CsvScalars.parse("01234")).isEqualTo("01234"); // a ZIP code keeps its leading zero
        assertThat(CsvScalars.parse("+5")).isEqualTo("+5");
        assertThat(CsvScalars.parse(" 5")).isEqualTo(" 5");
        assertThat(CsvScalars.parse("5.")).isEqualTo("5.");
        assertThat(CsvScalars.parse(".5")).isEqualTo(".5");
        assertThat(CsvScalars.parse("NaN")).isEqualTo("NaN");
        assertThat(CsvScalars.parse("1e999")).isEqualTo("1e999");
        assertThat(CsvScalars.parse("99999999999999999999")).isEqualTo("99999999999999999999");
        assertThat(CsvScalars.parse("2001-01-01T00:00:00Z")).isEqualTo("2001-01-01T00:00:00Z");
    }
}
