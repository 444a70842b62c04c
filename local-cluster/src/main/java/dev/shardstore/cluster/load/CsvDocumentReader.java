package dev.shardstore.cluster.load;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import tools.jackson.core.JsonGenerator;

/**
 * Streams documents out of RFC 4180 CSV (UTF-8) whose first line names the columns: one document per
 * row, field names from the header, values typed by {@link CsvScalars}. Empty lines are skipped; a
 * row with more fields than the header is an error, a shorter row simply lacks the last fields.
 */
final class CsvDocumentReader implements DocumentReader {
    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder()
            .setHeader()
            .setSkipHeaderRecord(true)
            .setIgnoreEmptyLines(true)
            .get();

    private final InputFile file;
    private final CSVParser parser;
    private final List<String> header;
    private final Iterator<CSVRecord> records;

    CsvDocumentReader(InputFile file) {
        this.file = file;
        try {
            this.parser = CSVParser.builder()
                    .setReader(new InputStreamReader(file.content(), StandardCharsets.UTF_8))
                    .setFormat(FORMAT)
                    .get();
        } catch (IOException | IllegalArgumentException e) {
            throw new LoadException(file.path() + ": cannot read the CSV header: " + e.getMessage(), e);
        }
        this.header = parser.getHeaderNames();
        this.records = parser.iterator();
    }

    @Override
    public boolean writeNext(JsonGenerator out) {
        CSVRecord record;
        try {
            if (!records.hasNext()) {
                return false;
            }
            record = records.next();
        } catch (UncheckedIOException | IllegalStateException e) {
            throw new LoadException(file.path() + " line " + parser.getCurrentLineNumber() + ": malformed CSV: " + e.getMessage(), e);
        }
        if (record.size() > header.size()) {
            throw new LoadException(file.path() + " line " + parser.getCurrentLineNumber() + ": " + record.size()
                    + " fields, but the header names " + header.size());
        }
        out.writeStartObject();
        for (int i = 0; i < record.size(); i++) {
            out.writeName(header.get(i));
            CsvScalars.write(out, record.get(i));
        }
        out.writeEndObject();
        return true;
    }
}
