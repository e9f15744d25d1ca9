// The putting plugin's SQLite schema and statements, as data: the adapter runs the migrations
// through the host's storage service (which records which ran) and binds the statements' named
// parameters. Heightfields are stored once per content hash and shared by holes. A shipped
// migration never changes; a schema change is a new migration at the end.

import ClubhouseToolkit

/// Schema migrations and statements of the putting store.
public enum PuttingSchema {
    /// Ordered migrations; each is run once, inside a transaction, in this order.
    public static let migrations: [Migration] = [
        Migration(1, "catalog and jobs", """
        CREATE TABLE courses (
            id    TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
            name  TEXT NOT NULL,
            city  TEXT,
            state TEXT
        );
        CREATE TABLE heightfields (
            hash          TEXT PRIMARY KEY CHECK (length(hash) = 64),
            nx            INTEGER NOT NULL CHECK (nx >= 2),
            nz            INTEGER NOT NULL CHECK (nz >= 2),
            resolution_ft REAL NOT NULL CHECK (resolution_ft > 0),
            x_min_ft      REAL NOT NULL,
            z_min_ft      REAL NOT NULL,
            heights       BLOB NOT NULL,
            CHECK (length(heights) = 4 * nx * nz)
        );
        CREATE TABLE holes (
            course_id           TEXT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
            number              INTEGER NOT NULL CHECK (number BETWEEN 1 AND 99),
            green_width_ft      REAL NOT NULL CHECK (green_width_ft > 0),
            green_height_ft     REAL NOT NULL CHECK (green_height_ft > 0),
            hole_x_ft           REAL,
            hole_z_ft           REAL,
            heightfield_hash    TEXT NOT NULL REFERENCES heightfields(hash),
            boundary_json       TEXT,
            contours_json       TEXT NOT NULL DEFAULT '[]',
            contour_interval_ft REAL,
            image_w_px          INTEGER,
            image_h_px          INTEGER,
            source              TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (course_id, number)
        );
        CREATE TABLE results (
            key         TEXT PRIMARY KEY CHECK (length(key) = 64),
            result_json TEXT NOT NULL,
            created_at  TEXT NOT NULL
        );
        CREATE TABLE jobs (
            id           TEXT PRIMARY KEY,
            key          TEXT NOT NULL,
            state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed')),
            request_json TEXT NOT NULL,
            error        TEXT,
            progress     REAL NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
            attempts     INTEGER NOT NULL DEFAULT 0,
            created_at   TEXT NOT NULL,
            updated_at   TEXT NOT NULL,
            seq          INTEGER NOT NULL
        );
        CREATE INDEX jobs_by_key ON jobs(key, seq);
        CREATE INDEX jobs_by_state ON jobs(state, seq);
        """),
        // Holes may exist before their heightfield (traced contours and boundary only, processed
        // later), so `heightfield_hash` becomes nullable; `heightfield_origin` says whether the
        // heightfield was imported or processed here; the traced files are kept verbatim. SQLite
        // cannot drop NOT NULL in place: the table is rebuilt (nothing references it) and every
        // existing hole keeps its imported heightfield.
        Migration(2, "holes from traced contours", """
        CREATE TABLE holes_v2 (
            course_id            TEXT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
            number               INTEGER NOT NULL CHECK (number BETWEEN 1 AND 99),
            green_width_ft       REAL NOT NULL CHECK (green_width_ft > 0),
            green_height_ft      REAL NOT NULL CHECK (green_height_ft > 0),
            hole_x_ft            REAL,
            hole_z_ft            REAL,
            heightfield_hash     TEXT REFERENCES heightfields(hash),
            heightfield_origin   TEXT CHECK (heightfield_origin IN ('imported', 'processed')),
            boundary_json        TEXT,
            contours_json        TEXT NOT NULL DEFAULT '[]',
            contour_interval_ft  REAL,
            image_w_px           INTEGER,
            image_h_px           INTEGER,
            source               TEXT NOT NULL DEFAULT '',
            traced_boundary_file TEXT,
            traced_boundary      TEXT,
            traced_contours_file TEXT,
            traced_contours      TEXT,
            PRIMARY KEY (course_id, number),
            CHECK ((heightfield_hash IS NULL) = (heightfield_origin IS NULL)),
            CHECK ((traced_boundary IS NULL) = (traced_contours IS NULL)),
            CHECK ((traced_boundary IS NULL) = (traced_boundary_file IS NULL)),
            CHECK ((traced_contours IS NULL) = (traced_contours_file IS NULL)),
            CHECK (heightfield_hash IS NOT NULL OR traced_boundary IS NOT NULL)
        );
        INSERT INTO holes_v2 (course_id, number, green_width_ft, green_height_ft, hole_x_ft, hole_z_ft, heightfield_hash,
            heightfield_origin, boundary_json, contours_json, contour_interval_ft, image_w_px, image_h_px, source)
        SELECT course_id, number, green_width_ft, green_height_ft, hole_x_ft, hole_z_ft, heightfield_hash,
            'imported', boundary_json, contours_json, contour_interval_ft, image_w_px, image_h_px, source
        FROM holes;
        DROP TABLE holes;
        ALTER TABLE holes_v2 RENAME TO holes;
        """),
        // Green books: each solved ball position is kept under the book's key (the green's hash, the
        // flag and every setting that changes a line) and its position, so a stopped book goes on where
        // it stopped and another spacing for the same pin reuses the positions it shares. Jobs say what
        // they run: a best line (every job before this migration) or a book.
        Migration(3, "book positions and book jobs", """
        CREATE TABLE book_positions (
            book_key   TEXT NOT NULL CHECK (length(book_key) = 64),
            x_ft       REAL NOT NULL,
            z_ft       REAL NOT NULL,
            entry_json TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (book_key, x_ft, z_ft)
        ) WITHOUT ROWID;
        ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'bestline' CHECK (kind IN ('bestline', 'book'));
        """),
    ]

    /// Named statements; parameters are `:name` (bound by name). SELECTs name every column (the
    /// store reads rows by column name), computed ones with `AS`.
    public enum Statement {
        public static let upsertCourse = """
        INSERT INTO courses (id, name, city, state) VALUES (:id, :name, :city, :state)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, city = excluded.city, state = excluded.state
        """
        /// Before re-inserting a course's holes (inside the same transaction).
        public static let deleteCourseHoles = "DELETE FROM holes WHERE course_id = :course_id"
        public static let insertHeightfield = """
        INSERT OR IGNORE INTO heightfields (hash, nx, nz, resolution_ft, x_min_ft, z_min_ft, heights)
        VALUES (:hash, :nx, :nz, :resolution_ft, :x_min_ft, :z_min_ft, :heights)
        """
        /// `:heightfield_hash` and `:heightfield_origin` are both NULL for a hole with only its traced files.
        public static let upsertHole = """
        INSERT OR REPLACE INTO holes (course_id, number, green_width_ft, green_height_ft, hole_x_ft, hole_z_ft,
            heightfield_hash, heightfield_origin, boundary_json, contours_json, contour_interval_ft, image_w_px, image_h_px,
            source, traced_boundary_file, traced_boundary, traced_contours_file, traced_contours)
        VALUES (:course_id, :number, :green_width_ft, :green_height_ft, :hole_x_ft, :hole_z_ft,
            :heightfield_hash, :heightfield_origin, :boundary_json, :contours_json, :contour_interval_ft, :image_w_px, :image_h_px,
            :source, :traced_boundary_file, :traced_boundary, :traced_contours_file, :traced_contours)
        """
        /// Heightfields no hole uses any more (after replacing holes). `NOT IN` a list holding NULL is
        /// never true, so the holes without a heightfield are left out of the list.
        public static let deleteUnusedHeightfields = """
        DELETE FROM heightfields
        WHERE hash NOT IN (SELECT heightfield_hash FROM holes WHERE heightfield_hash IS NOT NULL)
        """
        /// Columns: id, name, city, state.
        public static let selectCourse = "SELECT id, name, city, state FROM courses WHERE id = :id"
        /// Columns: id, name, city, state.
        public static let selectCourses = "SELECT id, name, city, state FROM courses ORDER BY id"
        /// Columns: number, green_width_ft, green_height_ft, hole_x_ft, hole_z_ft, heightfield_hash, nx, nz,
        /// resolution_ft, has_boundary, contour_count, source, heightfield_origin, has_traced. The grid
        /// columns are NULL for a hole without a heightfield.
        public static let selectHoleSummaries = """
        SELECT h.number, h.green_width_ft, h.green_height_ft, h.hole_x_ft, h.hole_z_ft, h.heightfield_hash,
               f.nx, f.nz, f.resolution_ft, h.boundary_json IS NOT NULL AS has_boundary,
               json_array_length(h.contours_json) AS contour_count, h.source,
               h.heightfield_origin, h.traced_boundary IS NOT NULL AS has_traced
        FROM holes h LEFT JOIN heightfields f ON f.hash = h.heightfield_hash
        WHERE h.course_id = :course_id ORDER BY h.number
        """
        /// Columns: green_width_ft, green_height_ft, hole_x_ft, hole_z_ft, heightfield_hash, boundary_json,
        /// contours_json, contour_interval_ft, image_w_px, image_h_px, source, nx, nz, resolution_ft,
        /// x_min_ft, z_min_ft, heights, heightfield_origin, traced_boundary_file, traced_boundary,
        /// traced_contours_file, traced_contours. The grid columns are NULL for a hole without a heightfield.
        public static let selectHole = """
        SELECT h.green_width_ft, h.green_height_ft, h.hole_x_ft, h.hole_z_ft, h.heightfield_hash, h.boundary_json,
               h.contours_json, h.contour_interval_ft, h.image_w_px, h.image_h_px, h.source,
               f.nx, f.nz, f.resolution_ft, f.x_min_ft, f.z_min_ft, f.heights,
               h.heightfield_origin, h.traced_boundary_file, h.traced_boundary, h.traced_contours_file, h.traced_contours
        FROM holes h LEFT JOIN heightfields f ON f.hash = h.heightfield_hash
        WHERE h.course_id = :course_id AND h.number = :number
        """
        /// Columns: result_json.
        public static let selectResult = "SELECT result_json FROM results WHERE key = :key"
        public static let upsertResult = """
        INSERT OR REPLACE INTO results (key, result_json, created_at) VALUES (:key, :result_json, :created_at)
        """
        /// Keeps a job's place in line (`seq`) when it is updated.
        public static let upsertJob = """
        INSERT INTO jobs (id, key, kind, state, request_json, error, progress, attempts, created_at, updated_at, seq)
        VALUES (:id, :key, :kind, :state, :request_json, :error, :progress, :attempts, :created_at, :updated_at,
                (SELECT coalesce(max(seq), 0) + 1 FROM jobs))
        ON CONFLICT (id) DO UPDATE SET key = excluded.key, kind = excluded.kind, state = excluded.state,
            request_json = excluded.request_json, error = excluded.error, progress = excluded.progress,
            attempts = excluded.attempts, updated_at = excluded.updated_at
        """
        /// Columns: id, key, kind, state, request_json, error, progress, attempts, created_at, updated_at.
        public static let selectJob = """
        SELECT id, key, kind, state, request_json, error, progress, attempts, created_at, updated_at FROM jobs WHERE id = :id
        """
        /// Columns as `selectJob`; bind :state.
        public static let selectJobsByState = """
        SELECT id, key, kind, state, request_json, error, progress, attempts, created_at, updated_at FROM jobs
        WHERE state = :state ORDER BY seq
        """
        /// Columns as `selectJob`.
        public static let selectJobsByKey = """
        SELECT id, key, kind, state, request_json, error, progress, attempts, created_at, updated_at FROM jobs
        WHERE key = :key ORDER BY seq
        """
        /// Columns: x_ft, z_ft, entry_json: every solved position of one book key.
        public static let selectBookPositions = """
        SELECT x_ft, z_ft, entry_json FROM book_positions WHERE book_key = :book_key
        """
        public static let upsertBookPosition = """
        INSERT OR REPLACE INTO book_positions (book_key, x_ft, z_ft, entry_json, created_at)
        VALUES (:book_key, :x_ft, :z_ft, :entry_json, :created_at)
        """
    }
}
