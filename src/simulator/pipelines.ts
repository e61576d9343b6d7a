/**
 * The pipelines the simulated service tracks: real names, slugs and TSP ids, plus the
 * private traits (zone, notice habits, capacity format) that make each one's data look
 * like that pipeline's own postings.
 */
import { DAY, formatDateTime, HOUR } from './sim-time.js';
import type { WirePipeline } from './types.js';

/** How a pipeline labels notice types, categories and statuses. */
export type NoticeStyle = 'naesb' | 'upper' | 'abbrev' | 'mixed';

/** How a pipeline numbers its notices: `26-0412`, `114523` or `20261120-03`. */
export type IdentifierStyle = 'year-seq' | 'seq' | 'date-seq';

/** How a pipeline's capacity quantities appear on the wire. */
export type QuantityStyle = 'number' | 'string' | 'grouped';

/** A tracked pipeline with the traits the generators need. */
export interface SimPipeline {
  id: number;
  name: string;
  slug: string;
  url: string;
  tspName: string;
  tspId: string;
  /** IANA zone the pipeline states its times in; never served by /ip/pipelines. */
  timezone: string;
  noticeStyle: NoticeStyle;
  identifierStyle: IdentifierStyle;
  /** Segments and stations that notice texts mention. */
  places: readonly string[];
  /** Present for the twenty pipelines with capacity data. */
  capacity?: { quantities: QuantityStyle; beta?: boolean };
}

type Row = [
  id: number,
  name: string,
  slug: string,
  url: string,
  tspName: string,
  tspId: string,
  timezone: string,
  noticeStyle: NoticeStyle,
  identifierStyle: IdentifierStyle,
  places: string[],
  quantities: QuantityStyle | null,
];

const CT = 'America/Chicago';
const ET = 'America/New_York';
const KM = 'https://pipeline2.kindermorgan.com/default.aspx?code=';
const EB = 'https://infopost.enbridge.com/infopost/';

// biome-ignore format: one pipeline per line reads as a table
const ROWS: Row[] = [
  [3, 'Transcontinental Gas Pipe Line (Transco)', 'transco', 'https://www.1line.williams.com/Transco/index.html', 'Transcontinental Gas Pipe Line Company, LLC', '007933021', CT, 'naesb', 'year-seq', ['Station 85', 'Station 165', 'Station 210', 'Zone 6 NY', 'Leidy Line', 'Mobile Bay Lateral'], 'number'],
  [5, 'Texas Eastern Transmission', 'texas-eastern', `${EB}TEHome.asp?Pipe=TE`, 'Texas Eastern Transmission, LP', '007932908', CT, 'upper', 'seq', ['Berne', 'Holbrook', 'Lebanon', 'STX Zone', 'Danville', 'Uniontown'], 'grouped'],
  [7, 'Tennessee Gas Pipeline', 'tennessee', `${KM}TGP`, 'Tennessee Gas Pipeline Company, L.L.C.', '001939164', CT, 'mixed', 'seq', ['Line 100', 'Line 200', 'Station 219', 'Zone 4 300 Line', 'Station 245', 'Line 500'], 'number'],
  [8, 'East Tennessee Natural Gas', 'east-tennessee', `${EB}ETNGHome.asp?Pipe=ETNG`, 'East Tennessee Natural Gas, LLC', '007921323', ET, 'upper', 'seq', ['Station 3110', 'Jewell Ridge Lateral', 'Mainline Nora'], 'grouped'],
  [11, 'Columbia Gas Transmission', 'columbia', 'https://ebb.tceconnects.com/infopost/?asset=TCO', 'Columbia Gas Transmission, LLC', '054748041', ET, 'naesb', 'year-seq', ['Line 1570', 'Leach XPress', 'Market Area 34', 'Crawford Compressor'], 'string'],
  [12, 'Eastern Gas Transmission and Storage', 'eastern-gas', 'https://infopost.bhegts.com/', 'Eastern Gas Transmission and Storage, Inc.', '116025180', ET, 'abbrev', 'date-seq', ['Leidy', 'Oakford', 'LN-25', 'Rural Valley'], 'number'],
  [14, 'Equitrans', 'equitrans', 'https://www.equitransenergy.com/infopost/', 'Equitrans, L.P.', '189569585', ET, 'abbrev', 'date-seq', ['H-302 Line', 'Rager Mountain', 'Mobley'], 'string'],
  [15, 'Algonquin Gas Transmission', 'algonquin', `${EB}AGHome.asp?Pipe=AG`, 'Algonquin Gas Transmission, LLC', '', ET, 'upper', 'seq', ['Stony Point', 'Southeast', 'Cromwell', 'Burrillville'], 'grouped'],
  [18, 'Natural Gas Pipeline Co. of America', 'ngpl', `${KM}NGPL`, 'Natural Gas Pipeline Company of America LLC', '006931794', CT, 'mixed', 'seq', ['Gulf Coast Mainline', 'Amarillo Mainline', 'Station 199', 'Herscher Storage'], 'number'],
  [19, 'Southern Natural Gas', 'southern-natural', `${KM}SNG`, 'Southern Natural Gas Company, L.L.C.', '006900518', CT, 'mixed', 'seq', ['South Main Line', 'Line VB', 'Muldon Storage', 'Onward'], 'string'],
  [21, 'ANR Pipeline', 'anr', 'https://ebb.anrpl.com/', 'ANR Pipeline Company', '006958581', CT, 'naesb', 'year-seq', ['Southeast Mainline', 'Southwest Mainline', 'Sandwich', 'Defiance'], 'grouped'],
  [22, 'Northern Natural Gas', 'northern-natural', 'https://www.northernnaturalgas.com/infopostings/', 'Northern Natural Gas Company', '784158214', CT, 'naesb', 'seq', ['Field Area', 'Market Area', 'Ventura', 'Demarcation'], 'grouped'],
  [24, 'Texas Gas Transmission', 'texas-gas', 'https://infopost.bwpipelines.com/Posting/default.aspx?Company=TGT', 'Texas Gas Transmission, LLC', '115972101', CT, 'abbrev', 'year-seq', ['Zone 1', 'Zone SL', 'Bosco', 'Lebanon'], 'string'],
  [25, 'Gulf South Pipeline', 'gulf-south', 'https://infopost.bwpipelines.com/Posting/default.aspx?Company=GS', 'Gulf South Pipeline Company, LLC', '078444247', CT, 'abbrev', 'year-seq', ['Index 130', 'Perryville', 'Carthage', 'Lake Charles'], 'number'],
  [27, 'Iroquois Gas Transmission', 'iroquois', 'https://www.iroquois.com/informational-postings/', 'Iroquois Gas Transmission System, L.P.', '603955949', ET, 'naesb', 'date-seq', ['Wright', 'Brookfield', 'Athens', 'South Commack'], 'number'],
  [28, 'Transwestern Pipeline', 'transwestern', 'https://twtransfer.energytransfer.com/ipost/TW', 'Transwestern Pipeline Company, LLC', '007933047', 'America/Phoenix', 'upper', 'seq', ['San Juan Lateral', 'Thoreau', 'West of Thoreau', 'Permian Panhandle'], 'string'],
  [30, 'Florida Gas Transmission', 'florida-gas', 'https://fgttransfer.energytransfer.com/ipost/FGT', 'Florida Gas Transmission Company, LLC', '006924518', CT, 'upper', 'seq', ['Station 12', 'Zone 3', 'Mobile Bay', 'Perry'], 'grouped'],
  [31, 'Panhandle Eastern Pipe Line', 'panhandle', 'https://peplmessenger.energytransfer.com/ipost/PEPL', 'Panhandle Eastern Pipe Line Company, LP', '045256641', CT, 'upper', 'seq', ['Haven', 'Houstonia', 'Zionsville', 'Tuscola'], 'number'],
  [33, 'El Paso Natural Gas', 'el-paso', `${KM}EPNG`, 'El Paso Natural Gas Company, L.L.C.', '', 'America/Denver', 'mixed', 'seq', ['South Mainline', 'North Mainline', 'Waha', 'Line 2000'], 'string'],
  [34, 'Southern Star Central', 'southern-star', 'https://csimessenger.southernstar.com/', 'Southern Star Central Gas Pipeline, Inc.', '', CT, 'naesb', 'date-seq', ['Blackwell', 'Hugoton', 'Ottawa', 'Kansas City Lateral'], 'grouped'],
  [36, 'Kern River Gas Transmission', 'kern-river', 'https://services.kernrivergas.com/portal/', 'Kern River Gas Transmission Company', '', 'America/Los_Angeles', 'naesb', 'year-seq', ['Muddy Creek', 'Goodsprings', 'Daggett', 'Opal'], null],
  [37, 'Northwest Pipeline', 'northwest', 'https://www.northwest.williams.com/', 'Northwest Pipeline LLC', '', 'America/Los_Angeles', 'naesb', 'year-seq', ['Sumas', 'Jackson Prairie', 'Kemmerer', 'Green River'], null],
  [39, 'Great Lakes Gas Transmission', 'great-lakes', 'https://ebb.tceconnects.com/infopost/?asset=GLGT', 'Great Lakes Gas Transmission Limited Partnership', '', 'America/Detroit', 'upper', 'seq', ['Emerson', 'St. Clair', 'Farwell', 'Fortune Lake'], null],
  [40, 'Rockies Express Pipeline', 'rockies-express', 'https://pipeline.tallgrassenergylp.com/', 'Rockies Express Pipeline LLC', '', 'America/Denver', 'abbrev', 'date-seq', ['Meeker Hub', 'Clarington', 'Wamsutter', 'Cheyenne Hub'], null],
  [42, 'Trunkline Gas', 'trunkline', 'https://trunklinemessenger.energytransfer.com/ipost/TGC', 'Trunkline Gas Company, LLC', '', CT, 'upper', 'seq', ['Longville', 'Independence', 'Epps', 'Field Zone'], null],
];

/** Southern Star's capacity data is the one marked as still in beta. */
const BETA_SLUG = 'southern-star';

/** All pipelines, ordered by id. */
export const PIPELINES: readonly SimPipeline[] = ROWS.map((r) => {
  const [id, name, slug, url, tspName, tspId, timezone, noticeStyle, identifierStyle, places] = r;
  const quantities = r[10];
  const pipeline: SimPipeline = {
    id,
    name,
    slug,
    url,
    tspName,
    tspId,
    timezone,
    noticeStyle,
    identifierStyle,
    places,
  };
  if (quantities) pipeline.capacity = { quantities, beta: slug === BETA_SLUG };
  return pipeline;
}).sort((a, b) => a.id - b.id);

const BY_SLUG = new Map(PIPELINES.map((p) => [p.slug, p]));
const BY_ID = new Map(PIPELINES.map((p) => [p.id, p]));

/** The pipeline with a slug, if tracked. */
export function pipelineBySlug(slug: string): SimPipeline | undefined {
  return BY_SLUG.get(slug);
}

/** The pipeline with an id; throws for an unknown id, which would be a generator bug. */
export function pipelineById(id: number): SimPipeline {
  const p = BY_ID.get(id);
  if (!p) throw new RangeError(`no pipeline with id ${id}`);
  return p;
}

/**
 * The /ip/pipelines form. The service timestamps sit a fixed distance before the start so
 * they are plausible for any start time.
 */
export function wirePipeline(p: SimPipeline, startAt: Date): WirePipeline {
  const day = Math.floor(startAt.getTime() / DAY) * DAY;
  const created = day - (900 - p.id * 11) * DAY + (13 + (p.id % 7)) * HOUR;
  const updated = day - (5 + ((p.id * 7) % 40)) * DAY + (15 + (p.id % 5)) * HOUR;
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    url: p.url,
    tsp_name: p.tspName,
    tsp_id: p.tspId,
    service_created_at: formatDateTime(created),
    service_updated_at: formatDateTime(updated),
  };
}
