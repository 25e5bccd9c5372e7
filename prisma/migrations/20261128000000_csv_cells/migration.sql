-- One CSV cell as the exports write it (src/services/exports/tabular.ts, csv-stringify with
-- escape_formulas): a text that a spreadsheet would run as a formula (it starts with =, +, -,
-- @, tab or carriage return, or their full-width forms) gets a leading single quote; a cell
-- holding a double quote, a comma, a carriage return or a line feed is quoted, its double
-- quotes doubled; NULL and the empty text are an empty cell. The equivalency CSV export
-- renders its rows here, in the database, so the server only passes text through
-- (test/unit/exports-streaming.test.ts checks it against csv-stringify on both databases).
--
-- Each body is one expression, with no FROM, so PostgreSQL inlines it into the export's
-- query instead of calling a function per cell (as a sub-select it ran at 10,000 rows/s).
CREATE FUNCTION "csv_cell"(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN value IS NULL OR value = '' THEN ''
    WHEN strpos(value, '"') > 0 OR strpos(value, ',') > 0 OR strpos(value, chr(13)) > 0 OR strpos(value, chr(10)) > 0
      THEN '"' || replace(
        CASE WHEN left(value, 1) IN ('=', '+', '-', '@', chr(9), chr(13), chr(65309), chr(65291), chr(65293), chr(65312))
          THEN '''' || value ELSE value END,
        '"', '""') || '"'
    WHEN left(value, 1) IN ('=', '+', '-', '@', chr(9), chr(13), chr(65309), chr(65291), chr(65293), chr(65312))
      THEN '''' || value
    ELSE value
  END
$$;

-- A timestamp(3) column (UTC) as JavaScript's Date.prototype.toISOString writes it, as the API does.
-- STABLE, as to_char is: a function declared IMMUTABLE over a STABLE one is not inlined.
CREATE FUNCTION "iso_timestamp"(value timestamp(3)) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(value, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
