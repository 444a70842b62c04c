package dev.shardstore.contracts.keystring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shardstore.contracts.keystring.Ordering.Direction;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class OrderingTest {

    @Test
    void allAscendingHasNAscendingComponents() {
        Ordering ordering = Ordering.allAscending(3);
        assertThat(ordering.size()).isEqualTo(3);
        assertThat(ordering.directions()).containsOnly(Direction.ASCENDING);
    }

    @Test
    void keyPatternFieldsWithNegativeNumbersAreDescending() {
        BsonDocument pattern = BsonDocument.parse(
                "{a: 1, b: -1, c: 'hashed', d: -0.5, e: {$numberDecimal: '-1'}, f: {$numberLong: '-1'}, g: 0}");
        assertThat(Ordering.fromKeyPattern(pattern).directions()).containsExactly(
                Direction.ASCENDING, Direction.DESCENDING, Direction.ASCENDING, Direction.DESCENDING,
                Direction.DESCENDING, Direction.DESCENDING, Direction.ASCENDING);
    }

    @Test
    void isImmutable() {
        List<Direction> directions = new ArrayList<>(List.of(Direction.DESCENDING));
        Ordering ordering = new Ordering(directions);
        directions.add(Direction.ASCENDING);
        assertThat(ordering.size()).isEqualTo(1);
        assertThat(ordering.isDescending(0)).isTrue();
        assertThatThrownBy(() -> ordering.directions().add(Direction.ASCENDING)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rejectsAnEmptyKey() {
        assertThatThrownBy(() -> Ordering.allAscending(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ordering.fromKeyPattern(new BsonDocument())).isInstanceOf(IllegalArgumentException.class);
    }
}
