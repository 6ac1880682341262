import Foundation
import KithHTTP
import KithStorage
import KithTemplates

/// A game's board to take away: a PNG drawn on the server from the same SVG
/// the board page shows (the game link's Open Graph image, and a download),
/// and its spots as CSV. Both go through `PlateGameScope`: 404 to outsiders.
enum PlateShareRoutes {
    static let image = Route(.get, "/games/:game/board.png")
    static let csv = Route(.get, "/games/:game/spots.csv")

    /// The picture's size: the Open Graph card's.
    static let width = 1200
    static let height = 630

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(image) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let model = try PlateRoutes.boardModel(context, game)
            let png = try render(svg: PlateShareImage.svg(model: model, width: width, height: height))
            var response = Response.bytes(png, contentType: "image/png")
            response.headers.set("Cache-Control", "private, no-store")
            if context.request.query["download"] == "1" {
                response.headers.set("Content-Disposition", "attachment; filename=\"plate-game-\(game.id).png\"")
            }
            return response
        }
        Endpoint(csv) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let spots = try context.app.database.read { try PlateStore.spots($0, gameID: game.id) }
            var lines = ["spotted_at,region,region_name,player,note"]
            for spot in spots {
                let fields = [TimeText.utc(spot.spottedAt, machine: true), spot.region, spot.regionName, spot.playerName, spot.note ?? ""]
                lines.append(fields.map(TallyHistoryRoutes.csvField).joined(separator: ","))
            }
            var response = Response.bytes(Array((lines.joined(separator: "\r\n") + "\r\n").utf8), contentType: "text/csv; charset=utf-8")
            response.headers.set("Cache-Control", "no-store")
            response.headers.set("Content-Disposition", "attachment; filename=\"plate-game-\(game.id)-spots.csv\"")
            return response
        }
    }

    /// The board page's Open Graph tags: its picture, absolute.
    static func previewTags(_ context: RequestContext, game: PlateGameScope) -> HTML {
        let base = context.app.baseURL
        return """
            <meta property="og:title"\(attribute: "content", game.name)>
            <meta property="og:image"\(attribute: "content", base + image.path(game.id))>
            <meta property="og:image:width"\(attribute: "content", String(width))>
            <meta property="og:image:height"\(attribute: "content", String(height))>

            """
    }

    /// SVG in, PNG out, through `rsvg-convert` (librsvg2-bin) on stdin and
    /// stdout. A server without it answers 503 with a message.
    static func render(svg: HTML) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["rsvg-convert", "--format=png"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let unavailable = "Map pictures aren't available on this server just now."
        do {
            try process.run()
        } catch {
            throw HTTPError(.serviceUnavailable, unavailable, cause: error)
        }
        // rsvg-convert reads all of its input before it writes: write, close, then read.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(svg.bytes))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !data.isEmpty else {
            throw HTTPError(.serviceUnavailable, unavailable, cause: RenderFailure(status: process.terminationStatus))
        }
        return [UInt8](data)
    }

    struct RenderFailure: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "rsvg-convert exited with status \(status)" }
    }
}
