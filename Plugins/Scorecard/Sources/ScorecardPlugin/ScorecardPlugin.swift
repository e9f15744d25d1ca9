// ScorecardPlugin: the thin adapter from ScorecardCore to PluginKit. Filled in by the scorecard plugin issue.
