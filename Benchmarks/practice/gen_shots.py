#!/usr/bin/env python3
"""Writes a seeded MLM2PRO-style export of N 7-iron shots (for the practice 1.1 benchmarks)."""
import argparse, random

HEADER = ["Club Type", "Club Brand", "Club Model", "Carry Distance", "Total Distance", "Ball Speed", "Launch Angle",
          "Launch Direction", "Apex", "Side Carry", "Club Speed", "Smash Factor", "Descent Angle", "Attack Angle",
          "Club Path", "Club Data Est Type", "Spin Rate", "Spin Axis"]

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shots", type=int, default=5000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    r = random.Random(a.seed)
    with open(a.out, "w") as f:
        f.write(",".join(f'"{h}"' for h in HEADER) + "\n")
        for _ in range(a.shots):
            ball = r.gauss(104, 4)
            club = ball / r.uniform(1.28, 1.36)
            carry = ball * 1.45 + r.gauss(0, 5)
            row = ["7i", "", "", f"{carry:.1f}", f"{carry + r.uniform(4, 10):.1f}", f"{ball:.1f}", f"{r.gauss(22, 2):.1f}",
                   f"{r.gauss(0, 3):.1f}", f"{r.gauss(95, 8):.1f}", f"{r.gauss(0, 9):.1f}", f"{club:.1f}", f"{ball / club:.2f}",
                   f"{r.gauss(48, 2):.1f}", f"{r.gauss(-2, 2):.1f}", f"{r.gauss(0, 3):.1f}", "0", f"{r.gauss(5500, 500):.0f}",
                   f"{r.gauss(0, 4):.1f}"]
            f.write(",".join(f'"{v}"' if v else "" for v in row) + "\n")

main()
