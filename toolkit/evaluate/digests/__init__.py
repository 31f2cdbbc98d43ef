"""What a digest claims, measured: labelled windows (``windows``), the acts it names
against their labels (``acts``, ``score``), the act thresholds' calibration
(``calibration``) and the table ``make eval`` checks (``main``)."""
