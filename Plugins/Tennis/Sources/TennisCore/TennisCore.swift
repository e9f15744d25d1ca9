// TennisCore: the tennis domain logic in plain Swift (no ABI, no CLI). Filled in by the tennis plugin issue.
