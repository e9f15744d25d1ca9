// The drill commands: validate, show (the planned balls), and run (stream the balls to the machine
// at the drill's pace, with the session's ACK handling, then the stop command).

extension TennisCommands {
    public struct DrillReport: TextReport, Equatable {
        public var name: String
        public var description: String?
        public var hash: String
        public var steps: Int
        public var balls: Int
        /// Sum of the delays: how long a run takes, not counting the machine's answers.
        public var durationSeconds: Double
        public var shuffle: Bool
        public var seed: UInt64
        public var plan: [DrillBall]?
        public var canonicalJSON: String?

        public init(_ drill: Drill, plan: [DrillBall]? = nil, seed: UInt64? = nil, canonical: Bool = false) {
            name = drill.name
            description = drill.description
            hash = drill.hash
            steps = drill.steps.count
            balls = drill.ballCount
            durationSeconds = drill.totalDelay
            shuffle = drill.shuffle
            self.seed = seed ?? drill.seed
            self.plan = plan
            canonicalJSON = canonical ? drill.canonicalJSON : nil
        }

        public var summaryLine: String {
            "drill \"\(name)\" (\(String(hash.prefix(12)))): \(steps) step\(steps == 1 ? "" : "s"), \(balls) ball\(balls == 1 ? "" : "s"), "
                + "\(Format.number(durationSeconds)) s of delays\(shuffle ? ", shuffled (seed \(seed))" : "")"
        }

        public var text: String {
            var lines = [summaryLine]
            if let description { lines.append("  \(description)") }
            for b in plan ?? [] {
                lines.append("ball \(b.index) (step \(b.step)): after \(Format.number(b.delay)) s, zone \(b.zone) at \(b.target.rounded(2)), \(b.speed.mph) mph \(b.spin.rawValue)")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis drill validate FILE`.
    public static func drillValidate(_ text: String, file: String) throws -> DrillReport {
        DrillReport(try Drill.parse(text, file: file))
    }

    /// `tennis drill show FILE [--seed N]`: the balls in launch order.
    public static func drillShow(_ drill: Drill, seed: UInt64? = nil) -> DrillReport {
        DrillReport(drill, plan: drill.plan(seed: seed), seed: seed, canonical: true)
    }

    /// When each ball was meant to go and when its command was written (seconds from the start).
    public struct DrillTiming: Sendable, Equatable, Codable {
        public var ball: Int
        public var scheduled: Double
        public var written: Double?
        /// `written − scheduled` in milliseconds: what the host added to the drill's pace.
        public var lateMs: Double?
    }

    public struct DrillRunReport: TextReport, Equatable {
        public var drill: DrillReport
        public var log: SessionLog
        public var timing: [DrillTiming]
        public var svg: String?
        public var linkFailure: String?
        /// Median and largest lateness of the commands written (ms).
        public var medianLateMs: Double?
        public var maxLateMs: Double?

        public var text: String {
            var lines = [drill.summaryLine]
            lines.append(SessionReport(log: log, svg: nil).text)
            if let median = medianLateMs, let max = maxLateMs {
                lines.append("pace: commands written \(Format.fixed(median, 3)) ms after their time (median), \(Format.fixed(max, 3)) ms at most")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `tennis drill run`: each ball waits its delay (counted from the previous ball's scheduled
    /// time, so replies do not push the pace back), is sent with the session's ACK handling, and the
    /// run ends with the stop command — also when `shouldStop` turns true (Ctrl-C) or the machine
    /// stops answering. A dry run (no link) writes nothing and does not wait.
    public static func drillRun(_ drill: Drill, seed: UInt64? = nil, settings: SessionSettings, table: CommandTable,
                                link: BallMachineLink?, clock: SessionClock, svgTitle: String? = nil, journal: SessionJournal? = nil,
                                shouldStop: () -> Bool = { false }, progress: (Int, Int) -> Void = { _, _ in }) throws
        -> DrillRunReport
    {
        let plan = drill.plan(seed: seed)
        // Every ball's setting must exist before anything is sent.
        for ball in plan {
            do {
                _ = try table.settings(zone: ball.zone, speed: ball.speed, spin: ball.spin)
            } catch {
                throw DrillError.notInTable(step: ball.step, error.description)
            }
        }
        var settings = settings
        settings.mode = .drill
        settings.drill = drill.name
        settings.drillHash = drill.hash
        if let first = plan.first {
            settings.speed = first.speed
            settings.spin = first.spin
            settings.interval = first.delay
        }
        let session = try BallMachineSession(settings: settings, table: table, calibration: nil, link: link, clock: clock,
                                             journal: journal)
        let paced = link != nil && !settings.dryRun
        var timing: [DrillTiming] = []
        var scheduled = 0.0
        var linkFailure: String? = nil
        do {
            for ball in plan {
                scheduled += ball.delay
                if paced {
                    guard session.wait(until: scheduled, shouldStop: shouldStop) else {
                        session.stopEarly("stopped by the user")
                        break
                    }
                } else if shouldStop() {
                    session.stopEarly("stopped by the user")
                    break
                }
                _ = try session.sendBall(ball, time: scheduled)
                timing.append(DrillTiming(ball: ball.index, scheduled: scheduled, written: nil, lateMs: nil))
                progress(ball.index, plan.count)
            }
        } catch SessionError.machineNotAnswering {
            // In the log; finish() still sends the stop command.
        } catch ExchangeError.stoppedByHost(let why, _) {
            // The host stopped the machine (its watchdog); finish() notes it.
            session.stopEarly(why)
        } catch let error as ExchangeError {
            linkFailure = error.description
            session.stopEarly(error.description)
        }
        let log = session.finish()
        // The write time of each ball's first attempt, from the log.
        if paced {
            for i in timing.indices {
                if let write = log.events.first(where: { $0.kind == .command && $0.launch == timing[i].ball && $0.attempt == 1 }) {
                    timing[i].written = write.at
                    timing[i].lateMs = (write.at - timing[i].scheduled) * 1000
                }
            }
        }
        let late = timing.compactMap(\.lateMs).sorted()
        let median = late.isEmpty ? nil : (late.count % 2 == 1 ? late[late.count / 2] : (late[late.count / 2 - 1] + late[late.count / 2]) / 2)
        let sectors = drill.steps.compactMap { step -> (x: ClosedRange<Double>, y: ClosedRange<Double>)? in
            if case .sector(let x, let y) = step.placement { return (x, y) }
            return nil
        }
        let svg = svgTitle.map { CourtSVG(title: $0).render(launches: log.launches, sectors: sectors) }
        return DrillRunReport(drill: DrillReport(drill, seed: seed), log: log, timing: timing, svg: svg, linkFailure: linkFailure,
                              medianLateMs: median, maxLateMs: late.last)
    }
}

public enum DrillError: Error, Sendable, Equatable, CustomStringConvertible {
    case notInTable(step: Int, String)
    case unknownDrill(String)

    public var description: String {
        switch self {
        case .notInTable(let step, let why): return "step \(step): \(why)"
        case .unknownDrill(let name):
            return "no saved drill \"\(name)\" at this site; give a drill file, or save it first with `clubhouse tennis drill save FILE.json` (see `tennis drill list`)"
        }
    }
}
