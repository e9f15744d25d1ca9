// `globe demo`: a sample traveller (made up for Clubhouse) marks countries and places, sees the
// stats, gets a world map, a silhouette and the globe mesh, and plays today's challenge.

/// The sample traveller's marks.
public enum DemoTraveller {
    public static let user = "demo-traveller"
    public static let visited = ["FR", "IT", "ES", "PT", "DE", "GB", "IE", "NL", "BE", "CH", "AT", "GR", "IS", "NO", "TR",
                                 "US", "CA", "MX", "PE", "AR", "BR", "JP", "TH", "VN", "AU", "NZ", "MA", "EG", "ZA", "KE"]
    public static let wishlist = ["IN", "CN", "CL", "NA", "TZ", "MN", "IR", "CO", "FJ", "VA"]
    /// (country, city): ten of them capitals, which unlocks the capital collector.
    public static let cities: [(String, String)] = [
        ("FR", "Paris"), ("FR", "Lyon"), ("IT", "Rome"), ("IT", "Florence"), ("ES", "Madrid"), ("GB", "London"),
        ("DE", "Berlin"), ("JP", "Tokyo"), ("JP", "Kyoto"), ("US", "Washington, D.C."), ("GR", "Athens"),
        ("PT", "Lisbon"), ("TH", "Bangkok"),
    ]
    public static let attractions: [(String, String)] = [
        ("FR", "Eiffel Tower"), ("IT", "Colosseum"), ("PE", "Machu Picchu"), ("EG", "Pyramids of Giza"), ("AU", "Uluru"),
    ]
}

public struct DemoResult: Sendable, Codable, Equatable {
    public var user: String
    public var stats: TravelStats
    public var files: [Globe.MeshFile]
    public var challenge: ChallengeView
    public var guesses: [GuessResult]
    public var steps: [String]

    public var text: String { steps.joined(separator: "\n") }
}

extension Globe {
    /// Runs the demo for `user`; files are named under `directory` (the adapter writes them).
    /// Running it again is harmless: marks are idempotent and a finished challenge is only shown.
    /// `isCancelled` is asked between steps and while the mesh is built; the adapter runs the demo in
    /// one transaction, so a stop leaves no marks either.
    public func demo(user requested: String? = nil, directory: String = "clubhouse-demo/globe", today: CivilDate,
                     progress: ((Int, Int) -> Void)? = nil, isCancelled: () -> Bool = { false }) throws(GlobeError)
        -> DemoResult
    {
        let user = try user(requested ?? DemoTraveller.user)
        if isCancelled() { throw .cancelled(what: "the demo's marks") }
        var steps: [String] = []
        var changed = 0
        for code in DemoTraveller.visited where countries.country(code: code) != nil {
            if try mark(MarkRequest(user: user, action: .visit, country: code)).changed { changed += 1 }
        }
        for code in DemoTraveller.wishlist where countries.country(code: code) != nil {
            if try mark(MarkRequest(user: user, action: .wish, country: code)).changed { changed += 1 }
        }
        for (code, city) in DemoTraveller.cities {
            _ = try? check(user: user, country: code, kind: .city, item: city)
        }
        for (code, place) in DemoTraveller.attractions {
            _ = try? check(user: user, country: code, kind: .attraction, item: place)
        }
        steps.append("\(user) marked \(DemoTraveller.visited.count) countries visited and \(DemoTraveller.wishlist.count) on the wishlist (\(changed) new marks)")
        let stats = try stats(user: user)
        steps.append(stats.text)

        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        var files: [MeshFile] = []
        let map = try map(user: user, selected: ["JP"])
        files.append(MeshFile(name: dir + "/world-map.svg", contents: map.svg))
        steps.append(map.summary + " → \(dir)/world-map.svg")
        let shape = try silhouette(country: "IT")
        files.append(MeshFile(name: dir + "/silhouette-IT.svg", contents: shape.svg))
        steps.append(shape.summary + " → \(dir)/silhouette-IT.svg")
        let mesh = try mesh(user: user, fileName: dir + "/globe.gltf", progress: progress, isCancelled: isCancelled)
        files += mesh.files
        steps.append(mesh.text)

        if isCancelled() { throw .cancelled(what: "the demo's challenge") }
        // Today's challenge: a wrong guess, the same guess in capitals (not counted), then the answer.
        var view = try challengeShow(user: user, today: today)
        steps.append(view.text)
        var guesses: [GuessResult] = []
        if view.status == .playing, let answerCountry = countries.country(code: (try? schedule.challenge(on: today))?.answer ?? "") {
            let answers = DailyChallenge.acceptedAnswers(type: view.type, country: answerCountry)
            let decoy = countries.countries.first { $0.code != answerCountry.code && $0.capital != nil }
            let wrong = view.type == .capital ? (decoy?.capital ?? "Atlantis") : (decoy?.name ?? "Atlantis")
            for guess in [wrong, wrong.uppercased(), answers.first ?? answerCountry.name] {
                let result = try challengeGuess(user: user, guess: guess, today: today)
                guesses.append(result)
                steps.append("guess '\(guess)': " + result.text)
                if result.state.status != .playing { break }
            }
            view = try challengeShow(user: user, today: today)
        }
        let calendar = try challengeCalendar(user: user, today: today)
        steps.append(calendar.text)
        return DemoResult(user: user, stats: stats, files: files, challenge: view, guesses: guesses, steps: steps)
    }
}
