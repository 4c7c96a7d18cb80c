# mistake: waits the same time before every attempt
# expect: 4000
return [base_ms for _ in range(attempts)]
