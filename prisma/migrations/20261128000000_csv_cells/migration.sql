-- One CSV cell as the exports write it (src/services/exports/tabular.ts, csv-stringify with
-- escape_formulas): a text that a spreadsheet would run as a formula (it starts with =, +, -,
-- @, tab or carriage return, or their full-width forms) gets a leading single quote; a cell
-- holding a double quote, a comma, a carriage return or a line feed is quoted, its double
-- quotes doubled; NULL and the empty text are an empty cell. The equivalency CSV export
-- renders its rows here, in the database, so the server only passes text through
-- (test/e2e/export-rendering.test.ts checks it against csv-stringify on both databases).
CREATE FUNCTION "csv_cell"(value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN value IS NULL OR value = '' THEN ''
    WHEN strpos(escaped, '"') > 0 OR strpos(escaped, ',') > 0 OR strpos(escaped, chr(13)) > 0 OR strpos(escaped, chr(10)) > 0
      THEN '"' || replace(escaped, '"', '""') || '"'
    ELSE escaped
  END
  FROM (SELECT CASE
          WHEN left(value, 1) IN ('=', '+', '-', '@', chr(9), chr(13), chr(65309), chr(65291), chr(65293), chr(65312))
            THEN '''' || value
          ELSE value
        END AS escaped) AS formula_safe
$$;

-- A timestamp(3) column (UTC) as JavaScript's Date.prototype.toISOString writes it, as the API does.
CREATE FUNCTION "iso_timestamp"(value timestamp(3)) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_char(value, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
