// PuttingCore: the putting domain logic in plain Swift (no ABI, no CLI). Filled in by the putting plugin issue.
