// ScorecardCore: the scorecard domain logic in plain Swift (no ABI, no CLI). Filled in by the scorecard plugin issue.
