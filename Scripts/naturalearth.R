# Writes the admin-1 polygons the plate game's North America map needs
# (the states of the USA and the provinces and territories of Canada) from
# Natural Earth's 1:50m admin-1 data, as shipped by Debian's
# r-cran-rnaturalearthdata (`states50`), to plain JSON:
#
#     Rscript Scripts/naturalearth.R OUTPUT
#
# `make map-source` runs it. Base R and sp (a dependency of the package,
# for the class of the object) only. Coordinates are longitude, latitude
# in degrees, rounded to 1e-4 (about 10 m), one ring per array, holes
# flagged, so the generator (Scripts/usmap.py) needs nothing but Python.
suppressMessages(library(sp))
output <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(output)) stop("usage: Rscript Scripts/naturalearth.R OUTPUT")
env <- new.env()
data("states50", package = "rnaturalearthdata", envir = env)
states <- env$states50
info <- states@data
keep <- which(info$sr_adm0_a3 %in% c("USA", "CAN"))
quote <- function(text) paste0('"', gsub('"', '\\\\"', enc2utf8(as.character(text))), '"')
number <- function(values) formatC(round(values, 4), format = "f", digits = 4, drop0trailing = TRUE)
features <- character(0)
for (i in keep[order(info$iso_3166_2[keep])]) {
  rings <- character(0)
  for (piece in states@polygons[[i]]@Polygons) {
    coords <- piece@coords
    points <- paste0("[", number(coords[, 1]), ",", number(coords[, 2]), "]", collapse = ",")
    rings <- c(rings, paste0('{"hole":', tolower(piece@hole), ',"points":[', points, "]}"))
  }
  features <- c(features, paste0(
    '{"iso":', quote(info$iso_3166_2[i]), ',"postal":', quote(info$postal[i]),
    ',"name":', quote(info$name[i]), ',"type":', quote(info$type_en[i]),
    ',"rings":[\n', paste(rings, collapse = ",\n"), "]}"))
}
writeLines(c(
  '{"source":"Natural Earth 1:50m admin-1 states and provinces (states50, r-cran-rnaturalearthdata), public domain",',
  '"features":[', paste(features, collapse = ",\n"), "]}"), output, useBytes = TRUE)
cat(sprintf("wrote %s: %d regions\n", output, length(keep)))
