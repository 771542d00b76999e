// simdjson_ref.cpp - reference loader for the ttrace load-time benchmark.
//
// Loads FILE with simdjson::padded_string::load, walks "traceEvents" with the
// On-Demand API and reads every event's "ts" and "dur" (as double, when
// present).  It prints the count and the sum so nothing is optimised away.
// bench/run times the whole process from outside, so reading the file counts,
// as it does for ttrace.
//
//   c++ -O2 -std=c++17 -o simdjson_ref simdjson_ref.cpp -lsimdjson
//   simdjson_ref FILE...
//   simdjson_ref --version      simdjson version and the implementation in use
#include <simdjson.h>

#include <cstdio>
#include <string_view>

using namespace simdjson;

static int load_one(ondemand::parser &parser, const char *path)
{
    padded_string json;
    error_code err = padded_string::load(path).get(json);
    if (err) {
        std::fprintf(stderr, "simdjson_ref: %s: %s\n", path, error_message(err));
        return 1;
    }
    ondemand::document doc;
    if ((err = parser.iterate(json).get(doc))) {
        std::fprintf(stderr, "simdjson_ref: %s: %s\n", path, error_message(err));
        return 1;
    }
    ondemand::array events;
    if ((err = doc["traceEvents"].get_array().get(events))) {
        std::fprintf(stderr, "simdjson_ref: %s: traceEvents: %s\n", path, error_message(err));
        return 1;
    }
    double sum = 0.0;
    unsigned long long nev = 0, nts = 0, ndur = 0;
    for (auto item : events) {
        ondemand::object obj;
        if ((err = item.get_object().get(obj)))
            goto fail;
        for (auto field : obj) {
            ondemand::raw_json_string key;
            if ((err = field.key().get(key)))
                goto fail;
            if (key == "ts") {
                double v;
                if ((err = field.value().get_double().get(v)))
                    goto fail;
                sum += v;
                nts++;
            } else if (key == "dur") {
                double v;
                if ((err = field.value().get_double().get(v)))
                    goto fail;
                sum += v;
                ndur++;
            }
        }
        nev++;
    }
    std::printf("%s: events=%llu ts=%llu dur=%llu sum=%.3f\n", path, nev, nts, ndur, sum);
    return 0;
fail:
    std::fprintf(stderr, "simdjson_ref: %s: event %llu: %s\n", path, nev, error_message(err));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: simdjson_ref FILE...\n");
        return 2;
    }
    if (std::string_view(argv[1]) == "--version") {
        std::printf("simdjson %d.%d.%d (%s)\n", int(SIMDJSON_VERSION_MAJOR), int(SIMDJSON_VERSION_MINOR),
                    int(SIMDJSON_VERSION_REVISION), get_active_implementation()->name().c_str());
        return 0;
    }
    ondemand::parser parser;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= load_one(parser, argv[i]);
    return rc;
}
